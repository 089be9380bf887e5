import { test } from '@japa/runner'
import { GroupCommit, type WrittenBatch } from '#core/group_commit/group_commit'

/** A writer that records its batches; `fail` decides which batches fail as a whole. */
function recordingWriter(fail: (items: number[]) => boolean = () => false) {
  const batches: number[][] = []
  const write = async (items: number[]): Promise<WrittenBatch<string>> => {
    batches.push(items)
    // The write yields like a database statement: items added meanwhile wait for the next batch.
    await new Promise((resolve) => setTimeout(resolve, 5))
    if (fail(items)) throw new Error('batch fault')
    return { results: items.map((item) => (item < 0 ? new Error(`refused ${item}`) : `stored ${item}`)) }
  }
  return { batches, write }
}

const unexpected = (error: unknown) => {
  throw error
}

test.group('GroupCommit', () => {
  test('items added in the same turn are written as one batch, each answered with its own result', async ({ assert }) => {
    const writer = recordingWriter()
    const queue = new GroupCommit<number, string>({ write: writer.write, maxBatchWeight: 100, onAfterAnswersError: unexpected })
    const results = await Promise.allSettled([1, -2, 3].map((item) => queue.add(item)))
    assert.deepEqual(writer.batches, [[1, -2, 3]])
    assert.deepEqual(
      results.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message)),
      ['stored 1', 'refused -2', 'stored 3']
    )
  })

  test('items added while a batch is written wait for the next one, in arrival order', async ({ assert }) => {
    const writer = recordingWriter()
    const queue = new GroupCommit<number, string>({ write: writer.write, maxBatchWeight: 100, onAfterAnswersError: unexpected })
    const first = [queue.add(1), queue.add(2)]
    await new Promise((resolve) => setTimeout(resolve, 1))
    const second = [queue.add(3), queue.add(4)]
    assert.deepEqual(await Promise.all([...first, ...second]), ['stored 1', 'stored 2', 'stored 3', 'stored 4'])
    assert.deepEqual(writer.batches, [[1, 2], [3, 4]])
  })

  test('a batch takes items up to its weight, and at least one however heavy', async ({ assert }) => {
    const writer = recordingWriter()
    const queue = new GroupCommit<number, string>({ write: writer.write, weight: (item) => item, maxBatchWeight: 10, onAfterAnswersError: unexpected })
    await Promise.all([4, 5, 3, 30, 2].map((item) => queue.add(item)))
    assert.deepEqual(writer.batches, [[4, 5], [3], [30], [2]])
  })

  test('a batch that fails as a whole is written again one by one: only the faulty item fails', async ({ assert }) => {
    const writer = recordingWriter((items) => items.includes(13))
    const queue = new GroupCommit<number, string>({ write: writer.write, maxBatchWeight: 100, onAfterAnswersError: unexpected })
    const results = await Promise.allSettled([1, 13, 2].map((item) => queue.add(item)))
    assert.deepEqual(results.map((result) => result.status), ['fulfilled', 'rejected', 'fulfilled'])
    assert.deepEqual(writer.batches, [[1, 13, 2], [1], [13], [2]])
    // The queue goes on after a fault.
    assert.equal(await queue.add(5), 'stored 5')
  })

  test('what runs after the answers runs once per batch; its fault is reported and the queue goes on', async ({ assert }) => {
    const steps: string[] = []
    const reported: unknown[] = []
    const queue = new GroupCommit<number, string>({
      write: async (items) => ({
        results: items.map((item) => `stored ${item}`),
        afterAnswers: async () => {
          steps.push(`announce ${items.join(',')}`)
          if (items.includes(2)) throw new Error('listener fault')
        },
      }),
      maxBatchWeight: 100,
      onAfterAnswersError: (error) => reported.push(error),
    })
    assert.deepEqual(await Promise.all([queue.add(1), queue.add(2)]), ['stored 1', 'stored 2'])
    assert.equal(await queue.add(3), 'stored 3')
    assert.deepEqual(steps, ['announce 1,2', 'announce 3'])
    assert.lengthOf(reported, 1)
  })

  test('idle() waits for every item added so far, those added while a batch is written included', async ({ assert }) => {
    let release = () => {}
    const gate = new Promise<void>((resolve) => (release = resolve))
    const batches: number[][] = []
    const queue = new GroupCommit<number, string>({
      write: async (items) => {
        batches.push(items)
        // The first batch is held until the test lets it go: the second item arrives meanwhile.
        if (batches.length === 1) await gate
        return { results: items.map((item) => `stored ${item}`) }
      },
      maxBatchWeight: 100,
      onAfterAnswersError: unexpected,
    })
    await queue.idle()
    const first = queue.add(1)
    while (!batches.length) await new Promise((resolve) => setImmediate(resolve))
    const second = queue.add(2)
    let idled = false
    const idle = queue.idle().then(() => (idled = true))
    await new Promise((resolve) => setImmediate(resolve))
    assert.isFalse(idled)
    release()
    await idle
    assert.deepEqual(batches, [[1], [2]])
    assert.deepEqual(await Promise.all([first, second]), ['stored 1', 'stored 2'])
  })
})
