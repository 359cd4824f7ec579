import { describe, expect, it } from 'vitest';
import { isAuthenticCallback, oauthQuery, oauthSignedMessage } from './oauth';

describe('the OAuth callback signature', () => {
  // The example of the platform's own documentation: secret "hush".
  const documented = {
    code: '0907a61c0c8d55e99db179b68161bc00',
    hmac: '700e2dadb827fcc8609e9d5ce208b2e9cdaab9df07390d2cbca10d7c328fc4bf',
    shop: 'some-shop.myshopify.com',
    state: '0.6784241404160823',
    timestamp: '1337178173',
  };

  it('is the hex HMAC-SHA256 of the sorted query without hmac, as the platform documents it', () => {
    expect(oauthSignedMessage(documented)).toBe('code=0907a61c0c8d55e99db179b68161bc00&shop=some-shop.myshopify.com&state=0.6784241404160823&timestamp=1337178173');
    expect(isAuthenticCallback('hush', documented)).toBe(true);
  });

  it('fails for another secret, any changed value, an added parameter or a malformed hmac', () => {
    expect(isAuthenticCallback('hush!', documented)).toBe(false);
    expect(isAuthenticCallback('hush', { ...documented, shop: 'other-shop.myshopify.com' })).toBe(false);
    expect(isAuthenticCallback('hush', { ...documented, host: 'YWRtaW4uc2hvcGlmeS5jb20vc3RvcmUveA' })).toBe(false);
    expect(isAuthenticCallback('hush', { ...documented, hmac: documented.hmac.slice(0, 62) })).toBe(false);
    expect(isAuthenticCallback('hush', { ...documented, hmac: 'zz'.repeat(32) })).toBe(false);
    const { hmac: _hmac, ...unsigned } = documented;
    expect(isAuthenticCallback('hush', unsigned)).toBe(false);
  });

  it('form-encodes values and spaces as %20, as the platform library does', () => {
    expect(oauthSignedMessage({ b: 'x y', a: 'é&=' })).toBe('a=%C3%A9%26%3D&b=x%20y');
  });

  it('reads repeated parameters joined with commas', () => {
    expect(oauthQuery('/auth/callback?ids=1&ids=2&shop=a.myshopify.com')).toEqual({ ids: '1,2', shop: 'a.myshopify.com' });
  });
});
