export * from './common';
export * from './user';
export * from './application';
export * from './meta';
export * from './widget';
export * from './audience';
export * from './platform';
export * from './embed';
