import { describe, expect, it } from 'vitest';
import { applicationHome } from './applications-page';

describe('opening an application from the list', () => {
  it('takes a Super User or a Manager to the team until the dashboard exists', () => {
    expect(applicationHome({ application_id: 'shop_1', role: 'super_user' })).toBe('/application/shop_1/permission');
    expect(applicationHome({ application_id: 'shop_1', role: 'manager' })).toBe('/application/shop_1/permission');
  });

  it('takes a role that may not see the team to the first screen it may see', () => {
    expect(applicationHome({ application_id: 'shop_1', role: 'viewer' })).toBe('/application/shop_1/banner');
  });

  it('offers no way in to a role with no screen yet, rather than a link to /401', () => {
    // Ads Managers see segments and settings, which later issues build.
    expect(applicationHome({ application_id: 'shop_1', role: 'ads_manager' })).toBeNull();
  });
});
