import { act, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAppStore } from '../../stores/store';
import { answer, type Call, fakeApi, fill, inTurn, press, renderInConsole } from '../../test-utils';
import { PasswordChangeForm, RESEND_COOLDOWN_SECONDS } from './password-change-form';

let calls: Call[] = [];
const sent = () => calls.map((call) => call.body);
const toasts = () => useAppStore.getState().toasts.map((toast) => toast.message);

function fillForm(confirm = 'new secret') {
  fill('Current password', 'old secret');
  fill('New password', 'new secret');
  fill('Confirm new password', confirm);
  fill('Email code', '123456');
}

beforeEach(() => {
  useAppStore.setState({ token: 'tok', roles: [] });
  // Until a test says how the server answers, every call answers NOT_FOUND.
  calls = fakeApi({});
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the change-password form', () => {
  it('sends the code, then waits before it can be sent again', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    calls = fakeApi({ 'POST /api/user/password/change': () => answer({ success: true, data: {}, message: 'We emailed you a code' }) });
    renderInConsole(<PasswordChangeForm />);
    await press('Send code');
    expect(sent()).toEqual([{ init: true }]);
    expect(toasts()).toEqual(['We emailed you a code']);
    expect(screen.getByText('We emailed you a code. It expires in 10 minutes.')).toBeTruthy();
    const again = screen.getByRole('button', { name: `Send again in ${RESEND_COOLDOWN_SECONDS}s` });
    expect(again.hasAttribute('disabled') || again.getAttribute('aria-disabled') === 'true').toBe(true);
    // The countdown ticks once a second, each tick scheduled after the last one rendered.
    for (let second = 0; second < RESEND_COOLDOWN_SECONDS; second += 1) {
      await act(async () => {
        await vi.advanceTimersByTimeAsync(1000);
      });
    }
    expect(screen.getByRole('button', { name: 'Send again' })).toBeTruthy();
  });

  it('says a mismatched confirmation on its field and sends nothing', async () => {
    renderInConsole(<PasswordChangeForm />);
    fillForm('new secrets');
    await press('Change password');
    expect(screen.getByText('Confirm password does not match')).toBeTruthy();
    expect(calls).toEqual([]);
  });

  it('puts a wrong code on the code field, then changes the password, empties the form and says so', async () => {
    const onChanged = vi.fn();
    calls = fakeApi({
      'POST /api/user/password/change': inTurn(
        answer({ success: false, error: 'OTP_INVALID', message: 'The code is wrong or has expired.', fields: [{ path: 'otp', message: 'The code is wrong or has expired.' }] }, 400),
        {},
      ),
    });
    renderInConsole(<PasswordChangeForm onChanged={onChanged} />);
    fillForm();
    await press('Change password');
    expect(await screen.findByText('The code is wrong or has expired.')).toBeTruthy();
    expect(screen.getAllByText('The code is wrong or has expired.')).toHaveLength(1);
    expect(onChanged).not.toHaveBeenCalled();

    fill('Email code', '654321');
    await press('Change password');
    await waitFor(() => expect(onChanged).toHaveBeenCalledTimes(1));
    expect(toasts()).toEqual(['Password has been changed']);
    expect((screen.getByLabelText('Current password') as HTMLInputElement).value).toBe('');
    expect(sent().at(-1)).toEqual({ old_password: 'old secret', new_password: 'new secret', confirm_password: 'new secret', otp: '654321' });
  });

  it('shows a code that could not be sent in the form’s banner', async () => {
    calls = fakeApi({
      'POST /api/user/password/change': () => answer({ success: false, error: 'TOO_MANY_REQUESTS', message: 'Too many attempts. Try again in a minute.' }, 429),
    });
    renderInConsole(<PasswordChangeForm />);
    await press('Send code');
    expect(await screen.findByText('Too many attempts. Try again in a minute.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Send code' })).toBeTruthy();
  });
});
