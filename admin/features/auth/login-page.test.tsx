import { screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAppStore } from '../../stores/store';
import { answer, type Call, fakeApi, fill, inTurn, press, renderInConsole } from '../../test-utils';
import { LoginPage } from './login-page';

const signedIn = { id: 7, name: 'Lan', email: 'lan@example.com', roles: [], created: '2025-01-01T00:00:00.000Z', auth_token: 'tok_7' };

let calls: Call[] = [];
const bodies = () => calls.map((call) => call.body);

beforeEach(() => {
  localStorage.clear();
  useAppStore.getState().signOut();
  // Signed out, so no application: until a test says how the server answers, every call answers NOT_FOUND.
  calls = fakeApi({});
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the login form', () => {
  describe('when the account has email OTP on', () => {
    it('asks for the emailed code, then signs in with it and goes to the redirect', async () => {
      calls = fakeApi({
        'POST /api/user/login': inTurn(answer({ success: false, error: 'OTP_REQUIRED', message: 'Enter the code we emailed you.' }, 400), signedIn),
      });
      const view = renderInConsole(<LoginPage />, { path: '/login?redirect=%2Fapplication%2Fshop_one%2Fpermission' });

      fill('Email', '  lan@example.com ');
      fill('Password', 'secret123');
      await press('Log in');

      expect(await screen.findByLabelText('Verification code')).toBeTruthy();
      expect(screen.getByText('We emailed a 6-digit sign-in code to lan@example.com.')).toBeTruthy();
      expect(useAppStore.getState().token).toBeNull();
      expect(localStorage.getItem('token')).toBeNull();

      fill('Verification code', '123456');
      await press('Verify and log in');

      await waitFor(() => expect(useAppStore.getState().token).toBe('tok_7'));
      expect(bodies()).toEqual([
        { username: 'lan@example.com', password: 'secret123' },
        { username: 'lan@example.com', password: 'secret123', otp: '123456' },
      ]);
      expect(localStorage.getItem('token')).toBe('tok_7');
      expect(view.location()).toBe('/application/shop_one/permission');
    });

    it('refuses a code that is not 6 digits without asking the server', async () => {
      calls = fakeApi({ 'POST /api/user/login': () => answer({ success: false, error: 'OTP_REQUIRED', message: 'Enter the code' }, 400) });
      renderInConsole(<LoginPage />, { path: '/login' });
      fill('Email', 'lan@example.com');
      fill('Password', 'secret123');
      await press('Log in');
      await screen.findByLabelText('Verification code');
      fill('Verification code', '12ab');
      await press('Verify and log in');
      expect(screen.getByText('The code has 6 digits')).toBeTruthy();
      expect(calls).toHaveLength(1);
    });

    it('shows a wrong code under the code field and stores nothing', async () => {
      calls = fakeApi({
        'POST /api/user/login': inTurn(
          answer({ success: false, error: 'OTP_REQUIRED', message: 'Enter the code' }, 400),
          answer({ success: false, error: 'OTP_INVALID', message: 'The code is wrong or has expired.' }, 400),
        ),
      });
      renderInConsole(<LoginPage />, { path: '/login' });
      fill('Email', 'lan@example.com');
      fill('Password', 'secret123');
      await press('Log in');
      await screen.findByLabelText('Verification code');
      fill('Verification code', '000000');
      await press('Verify and log in');
      expect(await screen.findByText('The code is wrong or has expired.')).toBeTruthy();
      expect(useAppStore.getState().token).toBeNull();
    });
  });

  describe('when the server refuses the password', () => {
    it('shows its message, stays on the page and stores nothing', async () => {
      calls = fakeApi({ 'POST /api/user/login': () => answer({ success: false, error: 'INVALID_PARAM', message: 'Invalid email or password' }, 400) });
      const view = renderInConsole(<LoginPage />, { path: '/login' });
      fill('Email', 'lan@example.com');
      fill('Password', 'wrong-password');
      await press('Log in');
      expect(await screen.findByText('Invalid email or password')).toBeTruthy();
      expect(useAppStore.getState().token).toBeNull();
      expect(localStorage.getItem('token')).toBeNull();
      expect(view.location()).toBe('/login');
    });
  });

  describe('after the server refused a password', () => {
    const refused = async () => {
      calls = fakeApi({ 'POST /api/user/login': () => answer({ success: false, error: 'INVALID_PARAM', message: 'Invalid email or password' }, 400) });
      renderInConsole(<LoginPage />, { path: '/login' });
      fill('Email', 'lan@example.com');
      fill('Password', 'wrong-password');
      await press('Log in');
      await screen.findByText('Invalid email or password');
    };

    it("shows only the form's own problem when the next try fails its check, not the old refusal beside it", async () => {
      await refused();
      fill('Password', '');
      await press('Log in');
      expect(screen.getByText('This field is required')).toBeTruthy();
      expect(screen.queryByText('Invalid email or password')).toBeNull();
      expect(calls).toHaveLength(1);
    });

    it('takes the refusal away once the user changes what was refused', async () => {
      await refused();
      fill('Password', 'correct-password');
      expect(screen.queryByText('Invalid email or password')).toBeNull();
    });
  });

  describe('when the answer has no token', () => {
    it('stores nothing', async () => {
      calls = fakeApi({ 'POST /api/user/login': () => ({ ...signedIn, auth_token: undefined }) });
      renderInConsole(<LoginPage />, { path: '/login' });
      fill('Email', 'lan@example.com');
      fill('Password', 'secret123');
      await press('Log in');
      await waitFor(() => expect(calls).toHaveLength(1));
      expect(useAppStore.getState().token).toBeNull();
    });
  });

  describe('when the email is not verified yet', () => {
    it('offers to send the verification email again', async () => {
      calls = fakeApi({
        'POST /api/user/login': () => answer({ success: false, error: 'EMAIL_NOT_VERIFIED', message: 'Please verify your email first.' }, 400),
        'POST /api/user/resend': () => ({ email: 'lan@example.com' }),
      });
      renderInConsole(<LoginPage />, { path: '/login' });
      fill('Email', 'lan@example.com');
      fill('Password', 'secret123');
      await press('Log in');
      await screen.findByText('Please verify your email first.');
      await press('Resend verification email');
      expect(await screen.findByText('Please check your email for verification info')).toBeTruthy();
      expect(calls[1].path).toBe('/api/user/resend');
      expect(bodies()[1]).toEqual({ email: 'lan@example.com' });
    });
  });

  describe('when the fields are empty', () => {
    it('says what is missing without asking the server', async () => {
      renderInConsole(<LoginPage />, { path: '/login' });
      await press('Log in');
      expect(screen.getByText('Please enter the correct email')).toBeTruthy();
      expect(screen.getByText('This field is required')).toBeTruthy();
      expect(calls).toEqual([]);
    });
  });
});
