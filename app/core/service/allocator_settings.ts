/**
 * glibc's allocator settings the server process starts with (docs/operations.md, Memory), set
 * by `npm start` (package.json, in shell syntax) and `gateway start`; a value already in the
 * environment wins. The allocator reads them once, at the process's start, so the server cannot
 * set them for itself.
 *
 * - MALLOC_MMAP_THRESHOLD_ pins the size from which a block gets its own mapping, returned to
 *   the system when freed, at glibc's initial 128 KiB. Left to itself glibc raises it to the
 *   largest block freed so far: after one scrypt hash (16 MB, on a worker thread), each worker
 *   thread's arena kept such a block for good.
 * - MALLOC_ARENA_MAX caps the arenas (one per thread by default, up to eight per core) at two, so
 *   fewer of them hold freed memory for reuse.
 */
export const ALLOCATOR_ENVIRONMENT: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
}

/** `env` with the allocator's settings added where it has none of its own. */
export function withAllocatorSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const settled = { ...env }
  for (const [name, value] of Object.entries(ALLOCATOR_ENVIRONMENT)) if (!settled[name]) settled[name] = value
  return settled
}
