export * from './statuses';
export * from './errors';
export * from './schemas/deletion-request';
export * from './schemas/auth';
export * from './scopes';
export * from './schemas/erasure-check';
export * from './schemas/callbacks';
