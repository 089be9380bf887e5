/*
 * Ace entry point. Registers the TypeScript loader for development commands, then hands over
 * to bin/console.ts. The production server does not go through here (see bin/server.ts).
 */
import 'ts-node-maintained/register/esm'
await import('./bin/console.js')
