import type { JobDefinition } from '#core/jobs/job_runner'
import { rotateLogFileWhenFull } from '#core/logging/log_file'

/** How often gateway.log's size is looked at: at most a few MB are written in that time. */
export const LOG_ROTATION_CHECK_MS = 5 * 60_000

/** Rotates the gateway's log once it is full (see rotateLogFileWhenFull), every few minutes. */
export function logRotationJob(rotate: () => boolean = () => rotateLogFileWhenFull()): JobDefinition {
  return {
    name: 'log-rotation',
    async run(now) {
      rotate()
      return new Date(now.getTime() + LOG_ROTATION_CHECK_MS)
    },
  }
}
