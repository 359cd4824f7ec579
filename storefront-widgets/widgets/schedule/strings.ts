export const STRINGS = {
  en: { close: 'Close', startsIn: 'Starts in', endsIn: 'Ends in', shop: 'Shop now', day: 'd' },
  vi: { close: 'Đóng', startsIn: 'Bắt đầu sau', endsIn: 'Kết thúc sau', shop: 'Mua ngay', day: 'ngày' },
};
