import { screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAppStore } from '../../stores/store';
import { answer, type Call, fakeApi, fill, inTurn, press, renderInConsole } from '../../test-utils';
import { ForgotPasswordPage } from './forgot-password-page';
import { RegisterPage } from './register-page';

/* The two account forms that end in "check your email": register and forgot password. */

let calls: Call[] = [];
const sent = () => calls.map((call) => [call.path, call.body]);

beforeEach(() => {
  useAppStore.getState().signOut();
  // Signed out, so no application: until a test says how the server answers, every call answers NOT_FOUND.
  calls = fakeApi({});
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the register form', () => {
  it('says what is wrong on each field and sends nothing until it is right', async () => {
    renderInConsole(<RegisterPage />, { path: '/register' });
    fill('Email', 'lan@');
    fill('Password', '12345');
    await press('Create account');
    expect(screen.getByText('Please enter the correct email')).toBeTruthy();
    expect(screen.getByText('The password can not be less than 6 digits')).toBeTruthy();
    expect(calls).toEqual([]);
  });

  it('puts a taken address on the email field, then registers and says to check the inbox', async () => {
    calls = fakeApi({
      'POST /api/user/register': inTurn(
        answer({ success: false, error: 'CONFLICT', message: 'This email is already registered', fields: [{ path: 'email', message: 'This email is already registered' }] }, 409),
        { id: 7, name: 'Trần Thu Lan', email: 'lan2@example.vn' },
      ),
    });
    renderInConsole(<RegisterPage />, { path: '/register' });
    fill('Full name', 'Trần Thu Lan');
    fill('Email', 'lan@example.vn');
    fill('Password', 'secret123');
    await press('Create account');
    // Said once, on its field: no banner repeating it.
    expect(await screen.findByText('This email is already registered')).toBeTruthy();
    expect(screen.getAllByText('This email is already registered')).toHaveLength(1);

    fill('Email', 'lan2@example.vn');
    await press('Create account');
    expect(await screen.findByText('We sent a verification link to lan2@example.vn. Open it to activate your account.')).toBeTruthy();
    expect(screen.getByText('Please check your email for verification info')).toBeTruthy();
    expect(sent()).toEqual([
      ['/api/user/register', { name: 'Trần Thu Lan', email: 'lan@example.vn', password: 'secret123', mobile_number: '' }],
      ['/api/user/register', { name: 'Trần Thu Lan', email: 'lan2@example.vn', password: 'secret123', mobile_number: '' }],
    ]);
  });

  it('shows a refusal that belongs to no field in a banner, and keeps what was typed', async () => {
    calls = fakeApi({
      'POST /api/user/register': () => answer({ success: false, error: 'TOO_MANY_REQUESTS', message: 'Too many attempts. Try again in a minute.' }, 429),
    });
    renderInConsole(<RegisterPage />, { path: '/register' });
    fill('Full name', 'Lan');
    fill('Email', 'lan@example.vn');
    fill('Password', 'secret123');
    await press('Create account');
    expect(await screen.findByText('Too many attempts. Try again in a minute.')).toBeTruthy();
    expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe('lan@example.vn');
  });
});

describe('the forgot-password form', () => {
  it('asks for the new password twice and sends only the address and the password', async () => {
    calls = fakeApi({ 'POST /api/user/resetPassword': () => ({ email: 'lan@example.vn' }) });
    renderInConsole(<ForgotPasswordPage />, { path: '/forgot-password' });
    fill('Email', 'lan@example.vn');
    fill('New password', 'new secret');
    fill('Confirm new password', 'new secrets');
    await press('Send confirmation link');
    expect(screen.getByText('Confirm password does not match')).toBeTruthy();
    expect(calls).toEqual([]);

    fill('Confirm new password', 'new secret');
    await press('Send confirmation link');
    expect(await screen.findByText('We sent a confirmation link to lan@example.vn. Your new password works once you open it.')).toBeTruthy();
    expect(sent()).toEqual([['/api/user/resetPassword', { email: 'lan@example.vn', password: 'new secret' }]]);
  });
});
