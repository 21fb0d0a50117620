// `npm install` generates the Prisma client (into server/src/generated, git-ignored).
import { runPrisma } from './prisma.mjs';

// generate reads only the schema; the URL is never connected to.
const status = runPrisma(['generate'], { DATABASE_URL: process.env.DATABASE_URL ?? 'postgresql://localhost/unused' });
process.exit(status);
