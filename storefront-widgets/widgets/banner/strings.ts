export const STRINGS = {
  en: { close: 'Close', more: 'Learn more', banner: 'Announcement' },
  vi: { close: 'Đóng', more: 'Xem ngay', banner: 'Thông báo' },
};
