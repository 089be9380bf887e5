/**
 * What the Activity log's entries are about, in the operator's words: the sources that write it
 * (`source`, usually a module: `backups`, `devices`) and the kinds of fact (`kind`, a family
 * `webhook` taking every `webhook.*`, or one kind `webhook.disabled`). Each module declares the
 * sources and kinds it writes in its `activity.ts` with `defineActivity` and registers them from
 * its provider (`registerVocabulary({ activity })`); core declares its own below. The dashboard's
 * Activity filters read them from GET /api/v1/activity/vocabulary, and a test
 * (tests/functional/platform/activity_vocabulary.spec.ts) holds that every source and kind the
 * code writes is declared by the same declaration, and every declared one is written.
 *
 *   export const backupActivity = defineActivity({
 *     sources: { backups: 'Backups' },
 *     kinds: { backup: 'Backups', restore: 'Restores' },
 *   })
 */
export interface ActivityDeclaration {
  /** Source name → its label (`backups: 'Backups'`). */
  sources: Record<string, string>
  /** Kind family (`backup`) or one kind (`webhook.disabled`) → its label. */
  kinds: Record<string, string>
}

/** A source name (a module's: `price_lists`), as GET /activity's `source` filter takes it. */
const SOURCE_NAME = /^[a-z][a-z0-9_]{0,39}$/
/** A kind family or kind, as GET /activity's `kind` filter takes it (activity_validators.ts). */
const KIND_NAME = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)?$/

export function defineActivity<Declaration extends ActivityDeclaration>(declaration: Declaration): Declaration {
  return declaration
}

export interface ActivityTerm {
  value: string
  label: string
}

/** Every source and kind of the running gateway, with the declaration that brought it. */
class ActivityCatalogue {
  readonly #sources = new Map<string, { label: string; declaration: ActivityDeclaration }>()
  readonly #kinds = new Map<string, { label: string; declaration: ActivityDeclaration }>()

  add(declaration: ActivityDeclaration): void {
    for (const [name, label] of Object.entries(declaration.sources)) {
      if (!SOURCE_NAME.test(name)) throw new Error(`Activity source ${JSON.stringify(name)} is not lower-case letters, digits and underscores`)
      if (this.#sources.has(name)) throw new Error(`Activity source ${name} is declared twice`)
      this.#sources.set(name, { label, declaration })
    }
    for (const [name, label] of Object.entries(declaration.kinds)) {
      if (!KIND_NAME.test(name) || name.length > 60) throw new Error(`Activity kind ${JSON.stringify(name)} is not <family> or <family>.<what>`)
      if (this.#kinds.has(name)) throw new Error(`Activity kind ${name} is declared twice`)
      this.#kinds.set(name, { label, declaration })
    }
  }

  /** The sources, by label (the order the dashboard offers them in). */
  sources(): ActivityTerm[] {
    return byLabel(this.#sources)
  }

  /** The kind families and kinds, by label. */
  kinds(): ActivityTerm[] {
    return byLabel(this.#kinds)
  }

  /**
   * Whether an entry of this source and kind is declared: the source, and the kind itself or its
   * family, by one same declaration (a module declares what it writes, not another's).
   */
  declares(source: string, kind: string): boolean {
    const declaration = this.#sources.get(source)?.declaration
    if (!declaration) return false
    const family = kind.split('.')[0]
    return this.#kinds.get(kind)?.declaration === declaration || this.#kinds.get(family)?.declaration === declaration
  }
}

function byLabel(terms: Map<string, { label: string }>): ActivityTerm[] {
  return [...terms]
    .map(([value, { label }]) => ({ value, label }))
    .sort((a, b) => a.label.localeCompare(b.label, 'en') || a.value.localeCompare(b.value, 'en'))
}

export const activityCatalogue = new ActivityCatalogue()

/**
 * Core's own entries: a settings change (app/core/settings/settings_controller.ts) and the data
 * folder's disk found full (app/core/notifications/storage_alerts.ts).
 */
export const coreActivity = defineActivity({
  sources: { settings: 'Settings', storage: 'Disk' },
  kinds: { settings: 'Settings changes', storage: 'Disk full' },
})
activityCatalogue.add(coreActivity)
