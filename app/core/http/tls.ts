import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { createSecureContext, type SecureContextOptions } from 'node:tls'

/** Where the gateway's own certificate and its private key are (GATEWAY_TLS_CERT_FILE, GATEWAY_TLS_KEY_FILE). */
export interface TlsFiles {
  certFile: string
  keyFile: string
}

/** The files read and checked: what the https server is given, and what the log may say of it. */
export interface TlsCredentials {
  cert: Buffer
  key: Buffer
  /** The first certificate of the file (the gateway's own; a chain may follow it). */
  subject: string
  validTo: Date
  /** The files as they stood just before they were read: a later change is a renewal to take. */
  stamp: string
}

/** A configuration the gateway refuses to start with; its message is the one line the operator sees. */
export class TlsConfigurationError extends Error {}

/**
 * The TLS files named by the environment, or null when neither is set (plain http). An empty
 * value counts as unset, as for PORT and HOST.
 */
export function tlsFilesFromEnv(env: NodeJS.ProcessEnv): TlsFiles | null {
  const certFile = env.GATEWAY_TLS_CERT_FILE || ''
  const keyFile = env.GATEWAY_TLS_KEY_FILE || ''
  if (!certFile && !keyFile) return null
  if (!certFile || !keyFile) {
    const [set, missing] = certFile ? ['GATEWAY_TLS_CERT_FILE', 'GATEWAY_TLS_KEY_FILE'] : ['GATEWAY_TLS_KEY_FILE', 'GATEWAY_TLS_CERT_FILE']
    throw new TlsConfigurationError(`${set} is set but ${missing} is not: set both (the certificate and its private key, PEM files) or neither`)
  }
  return { certFile, keyFile }
}

/**
 * Reads both files and checks them the way the https server would, so that every mistake is
 * one sentence naming the variable at fault instead of an OpenSSL error at the first handshake.
 * Never puts the key's content in a message.
 */
export function readTlsCredentials(files: TlsFiles): TlsCredentials {
  const stamp = filesStamp(files)
  const cert = readPem('GATEWAY_TLS_CERT_FILE', files.certFile)
  const key = readPem('GATEWAY_TLS_KEY_FILE', files.keyFile)
  let certificate: X509Certificate
  try {
    certificate = new X509Certificate(cert)
  } catch {
    throw new TlsConfigurationError(`GATEWAY_TLS_CERT_FILE ${files.certFile} holds no PEM certificate`)
  }
  let privateKey: KeyObject
  try {
    privateKey = createPrivateKey(key)
  } catch (error) {
    // A passphrase cannot be given: the key must be stored unencrypted, readable by the gateway only.
    // OpenSSL says "interrupted or cancelled" for a key it was given no passphrase for; the
    // PEM header (PKCS#8 or the traditional Proc-Type line) tells it plainly.
    const encrypted = (error as NodeJS.ErrnoException).code === 'ERR_MISSING_PASSPHRASE' || /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(key.toString('latin1'))
    throw new TlsConfigurationError(
      encrypted
        ? `GATEWAY_TLS_KEY_FILE ${files.keyFile} is protected by a passphrase: give the gateway the key without one`
        : `GATEWAY_TLS_KEY_FILE ${files.keyFile} holds no PEM private key`
    )
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new TlsConfigurationError(`GATEWAY_TLS_KEY_FILE ${files.keyFile} is not the private key of the certificate in GATEWAY_TLS_CERT_FILE ${files.certFile}`)
  }
  try {
    createSecureContext({ cert, key })
  } catch (error) {
    throw new TlsConfigurationError(`GATEWAY_TLS_CERT_FILE and GATEWAY_TLS_KEY_FILE cannot be used together (${oneLine(error)})`)
  }
  return { cert, key, subject: certificate.subject.split('\n').join(', '), validTo: new Date(certificate.validTo), stamp }
}

/** Both files' identity, size and time of change; stat follows symbolic links, so certbot's `live/` links moved to new files count. */
function filesStamp(files: TlsFiles): string {
  return [files.certFile, files.keyFile]
    .map((file) => {
      try {
        const { dev, ino, size, mtimeMs } = statSync(file)
        return `${dev}:${ino}:${size}:${mtimeMs}`
      } catch (error) {
        return (error as NodeJS.ErrnoException).code ?? 'missing'
      }
    })
    .join('|')
}

function readPem(variable: string, file: string): Buffer {
  try {
    return readFileSync(file)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable'
    throw new TlsConfigurationError(`${variable} ${file} cannot be read (${code})`)
  }
}

function oneLine(value: unknown): string {
  return String((value as Error)?.message ?? value).replace(/\s+/g, ' ').trim()
}

/** What the reloader tells the log; never the key, nor its content. */
export interface TlsLog {
  info(message: string): void
  warn(message: string): void
}

/** The part of an https server the reloader needs. */
export interface SecureContextHolder {
  setSecureContext(options: SecureContextOptions): void
}

/** How often the files are looked at: a renewal is taken within this time, without a restart. */
export const TLS_RELOAD_CHECK_MS = 60_000

/**
 * Takes a renewed certificate without a restart: looks at both files every minute and, when
 * either changed since the pair in use was read, reads and checks them again and gives the
 * server the new pair. New connections get it; open ones keep the certificate they were made
 * with. A pair that fails the checks (a renewal caught halfway, the key written after the
 * certificate) is not taken: the server keeps the previous one, the log says why, and the next
 * change is tried again.
 */
export class CertificateReloader {
  #timer: NodeJS.Timeout | null = null
  #seen: string

  constructor(
    private server: SecureContextHolder,
    private files: TlsFiles,
    inUse: TlsCredentials,
    private log: TlsLog,
    private everyMs = TLS_RELOAD_CHECK_MS
  ) {
    this.#seen = inUse.stamp
  }

  start(): void {
    if (this.#timer) return
    this.#timer = setInterval(() => this.check(), this.everyMs)
    // Never what keeps the process alive: a stopping gateway does not wait for the next look.
    this.#timer.unref()
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = null
  }

  /** One look at the files; answers what it did. */
  check(): 'unchanged' | 'reloaded' | 'kept' {
    const stamp = filesStamp(this.files)
    if (stamp === this.#seen) return 'unchanged'
    this.#seen = stamp
    let credentials: TlsCredentials
    try {
      credentials = readTlsCredentials(this.files)
      this.server.setSecureContext({ cert: credentials.cert, key: credentials.key })
    } catch (error) {
      this.log.warn(`TLS certificate files changed but were not taken, the previous certificate stays in use: ${oneLine(error)}`)
      return 'kept'
    }
    this.log.info(`TLS certificate reloaded: ${describeCertificate(credentials)}`)
    return 'reloaded'
  }
}

/** The certificate in the log's words: its subject and last day, nothing of the key. */
export function describeCertificate(credentials: TlsCredentials): string {
  return `${credentials.subject}, valid until ${credentials.validTo.toISOString()}`
}
