/** What the widgets with a form say about it. */
export const FORM_STRINGS = {
  en: {
    preview: 'Preview: nothing is sent.',
    required: 'Please fill this in.',
    email: 'Enter a valid email address.',
    phone: 'Enter a valid phone number.',
    failed: 'Could not send. Please try again.',
    sending: 'Sending…',
  },
  vi: {
    preview: 'Bản xem trước: không gửi dữ liệu thật.',
    required: 'Vui lòng nhập thông tin này.',
    email: 'Địa chỉ email không hợp lệ.',
    phone: 'Số điện thoại không hợp lệ.',
    failed: 'Không gửi được. Vui lòng thử lại.',
    sending: 'Đang gửi…',
  },
};
