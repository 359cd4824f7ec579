export const STRINGS = {
  en: {
    close: 'Close',
    someone: 'Someone',
    in: (city: string) => ` in ${city}`,
    bought: ' bought',
    justNow: 'just now',
    ago: (n: number, unit: 'minute' | 'hour' | 'day') => `${n} ${unit}${n === 1 ? '' : 's'} ago`,
    notices: 'Recent purchases',
  },
  vi: {
    close: 'Đóng',
    someone: 'Một khách hàng',
    in: (city: string) => ` ở ${city}`,
    bought: ' vừa mua',
    justNow: 'vừa xong',
    ago: (n: number, unit: 'minute' | 'hour' | 'day') => `${n} ${{ minute: 'phút', hour: 'giờ', day: 'ngày' }[unit]} trước`,
    notices: 'Đơn hàng gần đây',
  },
};
