import type { JobRunner } from '#core/jobs/job_runner'

/**
 * Makes a module's job due (now, or at a given time) when it has new work. A module binds a
 * subclass naming its job, with the runner resolved at each wake: jobs run with the HTTP server
 * only, and a test puts its own runner (on a ManualClock) in the container.
 */
export abstract class JobWake {
  protected abstract readonly job: string

  constructor(private runner: () => Promise<JobRunner>) {}

  wake(at?: Date): void {
    void this.runner().then((runner) => {
      if (runner.started && runner.has(this.job)) runner.wake(this.job, at)
    })
  }
}
