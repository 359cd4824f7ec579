import { describe, expect, it } from 'vitest';
import { applicationHome } from './applications-page';

describe('opening an application from the list', () => {
  it.each(['super_user', 'manager', 'user', 'viewer', 'ads_manager'] as const)('takes a %s to the dashboard, which every member may see', (role) => {
    expect(applicationHome({ application_id: 'shop_1', role })).toBe('/application/shop_1');
  });

  it('takes someone without a membership role (the platform admin) to the dashboard too', () => {
    expect(applicationHome({ application_id: 'shop_1', role: null })).toBe('/application/shop_1');
  });
});
