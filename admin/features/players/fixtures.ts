import type { Application, Player, TagList } from '../../../shared/contract';

/** Test data of the audience screens: an application and a player as the API sends them. */
export const application: Application = {
  application_id: 'shop_one',
  name: 'Shop One',
  client_key: 'ck_0123456789',
  total_users: 0,
  platforms: [],
  created: '2025-01-01T00:00:00.000Z',
  deleting_at: null,
  role: 'super_user',
  plan: 'free',
  utc_offset: 420,
  phone_country: 'VN',
};

export const player: Player = {
  id: 42,
  device_id: 'v_8f2c1a9e77',
  platform: 'web',
  device_type: 'mobile',
  device_token: null,
  external_user_id: 'cust-1001',
  email: 'lan@example.vn',
  mobile_number: null,
  fb_psid: null,
  os: 'Android',
  os_version: '14',
  browser: 'Chrome',
  app_version: null,
  device_model: null,
  gender: null,
  language: 'vi',
  country: 'VN',
  city: 'Hà Nội',
  timezone: 'Asia/Ho_Chi_Minh',
  timezone_offset: 420,
  utm_source: 'facebook',
  utm_medium: 'cpc',
  utm_campaign: 'tet-sale',
  utm_term: null,
  utm_content: null,
  first_session_at: '2025-02-01T08:00:00.000Z',
  last_session_at: '2025-03-01T08:00:00.000Z',
  last_seen_at: '2025-03-01T08:20:00.000Z',
  session_count: 7,
  page_views: 31,
  subscribed: true,
  subscribed_at: '2025-02-01T08:01:00.000Z',
  unsubscribed_at: null,
  opted_out_at: null,
  channels: ['web_push'],
  tags: ['vip', 'tea-lover'],
  created_at: '2025-02-01T08:00:00.000Z',
  updated_at: '2025-03-01T08:20:00.000Z',
};

/** The application's tags as GET …/tag lists them: most held first, one written in capitals. */
export const tagList: TagList = {
  items: [
    { tag: 'buyer', players: 4000 },
    { tag: 'vip', players: 1200 },
    { tag: 'VIP-2024', players: 3 },
  ],
  more: false,
};
