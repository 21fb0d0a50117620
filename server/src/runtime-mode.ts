/**
 * The service runs as production unless NODE_ENV says otherwise: the Requests page is rendered
 * with React's production build (about half the time of the development build, which adds checks
 * and warnings), and libraries skip their development-time work. main.ts imports this first, so
 * it is set before any module reads it. `npm run dev` sets NODE_ENV=development; tests set `test`.
 */
process.env.NODE_ENV ??= 'production';
