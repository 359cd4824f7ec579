export const STRINGS = {
  en: {
    close: 'Close',
    fields: { name: 'Name', email: 'Email', phone: 'Phone number', message: 'Message' },
    send: 'Send',
    thanks: 'Thank you! We will get back to you soon.',
    form: 'Contact form',
  },
  vi: {
    close: 'Đóng',
    fields: { name: 'Họ và tên', email: 'Email', phone: 'Số điện thoại', message: 'Lời nhắn' },
    send: 'Gửi',
    thanks: 'Cảm ơn bạn! Chúng tôi sẽ liên hệ lại sớm.',
    form: 'Biểu mẫu liên hệ',
  },
};
