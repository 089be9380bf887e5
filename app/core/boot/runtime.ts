import { DataFolder } from '#core/data_folder/data_folder'

/**
 * What every entry point (server, Ace, tests) does before AdonisJS boots, so that a fresh
 * machine needs no `.env`, no key generation and no manual step: the data folder and master
 * key exist, and the framework's app key is derived from the master key.
 */
export function prepareRuntime(defaults: { port?: string; host?: string; nodeEnv?: string } = {}): DataFolder {
  const folder = DataFolder.current()
  folder.prepare()
  // Derived, not configured: a restored data folder (with its secret.key) keeps its cookies.
  process.env.APP_KEY = folder.deriveKey('adonisjs-app-key').toString('base64url')
  process.env.PORT ||= defaults.port ?? '3000'
  process.env.HOST ||= defaults.host ?? '0.0.0.0'
  process.env.NODE_ENV ||= defaults.nodeEnv ?? 'production'
  return folder
}

/**
 * How AdonisJS imports the app's own files: paths relative to the app root, packages by name.
 */
export function appImporter(appRoot: URL) {
  return (filePath: string) => {
    if (filePath.startsWith('./') || filePath.startsWith('../')) {
      return import(new URL(filePath, appRoot).href)
    }
    return import(filePath)
  }
}
