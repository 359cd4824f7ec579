export const STRINGS = {
  en: { close: 'Close', promotion: 'Promotion', recommendation: 'Recommended for you' },
  vi: { close: 'Đóng', promotion: 'Khuyến mãi', recommendation: 'Gợi ý cho bạn' },
};
