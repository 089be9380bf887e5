import { computed, ref } from 'vue'
import type { RouteLocationRaw } from 'vue-router'
import { api, answer } from '../../api/client'
import type { OperationId } from '../../api/operations'
import { useLoaded } from '../../components/use_loaded'
import { may, signedIn } from '../../session/session'

interface StepDefinition {
  key: 'phone' | 'sms' | 'apiKey' | 'backup'
  label: string
  hint: string
  /** The operation that tells whether the step is done, and the one that does it. */
  reads: OperationId
  does: OperationId
  isDone: () => Promise<boolean>
  to: (done: boolean) => RouteLocationRaw
}

/**
 * Each step is ticked from what the gateway holds, never from what this browser remembers:
 * the list is the same on every browser and for every account of a role.
 */
const definitions: StepDefinition[] = [
  {
    key: 'phone',
    label: 'Pair a phone',
    hint: 'The gateway sends and receives SMS through your own phones.',
    reads: 'listDevices',
    does: 'createPairingCode',
    isDone: async () => (await answer(api.GET('/api/v1/devices', { params: { query: { limit: 1 } } }))).data.length > 0,
    to: (done) => (done ? { name: 'phones' } : { name: 'phones', query: { pair: '1' } }),
  },
  {
    key: 'sms',
    label: 'Send a first SMS',
    hint: 'Any outgoing message counts, from the Send page or the API.',
    reads: 'listMessages',
    does: 'sendMessages',
    isDone: async () => (await answer(api.GET('/api/v1/messages', { params: { query: { direction: 'out', limit: 1 } } }))).data.length > 0,
    to: (done) => (done ? { name: 'messages' } : { name: 'send' }),
  },
  {
    key: 'apiKey',
    label: 'Make an API key',
    hint: 'Your own programs send and read messages with a key.',
    reads: 'listApiKeys',
    does: 'createApiKey',
    isDone: async () => (await answer(api.GET('/api/v1/api-keys', { params: { query: { limit: 1 } } }))).data.length > 0,
    to: () => ({ name: 'api-keys' }),
  },
  {
    key: 'backup',
    label: 'Check the backup schedule',
    hint: 'Automatic backups follow a default schedule until someone saves one on the Backups page.',
    reads: 'getBackupSchedule',
    does: 'updateSettings',
    // An automatic backup runs on a fresh gateway by itself, so only a saved schedule says someone looked.
    isDone: async () => (await answer(api.GET('/api/v1/backups/schedule'))).savedAt !== null,
    to: () => ({ name: 'backups' }),
  },
]

export type FirstStep = Pick<StepDefinition, 'key' | 'label' | 'hint'> & { done: boolean; to: RouteLocationRaw }

/** Hiding the list is a person's wish for their own screen, so it stays in this browser, per account. */
const dismissalKey = () => `gateway.firstSteps.dismissed.${signedIn.value?.user.id ?? ''}`

function readDismissed(): boolean {
  try {
    return localStorage.getItem(dismissalKey()) === '1'
  } catch {
    // why: a browser that refuses storage (cookies blocked for the site) shows the list; hiding is a courtesy.
    return false
  }
}

/**
 * The Overview's first steps (docs/dashboard.md, Overview): the steps the signed-in role may both
 * read and do, each read once when the Overview opens. `visible` is false while they are read, when
 * the role has none (a read-only account), once every step is done, or after "Hide".
 */
export function useFirstSteps() {
  const dismissed = ref(readDismissed())
  // A hidden list is not read at all.
  const shown = dismissed.value ? [] : definitions.filter((step) => may(step.reads) && may(step.does))
  const loaded = useLoaded(async () => Promise.all(shown.map((step) => step.isDone())))

  const steps = computed<FirstStep[]>(() => {
    const done = loaded.data.value
    if (!done) return []
    return shown.map((step, index) => ({ key: step.key, label: step.label, hint: step.hint, done: done[index], to: step.to(done[index]) }))
  })
  const doneCount = computed(() => steps.value.filter((step) => step.done).length)
  const visible = computed(() => {
    if (dismissed.value || !shown.length) return false
    if (loaded.problem.value) return true
    return steps.value.length > 0 && doneCount.value < steps.value.length
  })

  function dismiss() {
    dismissed.value = true
    try {
      localStorage.setItem(dismissalKey(), '1')
    } catch {
      // why: storage refused (blocked, or no room): the list is hidden until the Overview opens again.
    }
  }

  return { steps, doneCount, total: shown.length, visible, problem: loaded.problem, dismiss }
}

export type FirstStepsState = ReturnType<typeof useFirstSteps>
