import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Certificates made at test time with the openssl command, the way docs/operations.md tells an
 * operator to make them for a local network: a CA of one's own, and the gateway's certificate
 * signed by it for its address. Nothing is kept between runs.
 */
export const OPENSSL_MISSING = 'the openssl command is not installed: the tests of the gateway’s own TLS need it to make certificates'

export function opensslMissing(): boolean {
  return spawnSync('openssl', ['version']).status !== 0
}

export interface Pair {
  certFile: string
  keyFile: string
}

function openssl(args: string[], folder: string): void {
  const run = spawnSync('openssl', args, { cwd: folder, encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`openssl ${args[0]} failed: ${run.stderr}`)
}

/** A certificate authority of one's own (the CA a phone installs as a user certificate). */
export function makeCa(folder: string, name: string): Pair {
  const pair = { certFile: join(folder, `${name}.crt`), keyFile: join(folder, `${name}.key`) }
  openssl(
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '30', '-subj', `/CN=${name}`,
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
      '-keyout', pair.keyFile, '-out', pair.certFile],
    folder
  )
  return pair
}

/** The gateway's certificate for `addresses` (subjectAltName entries such as `IP:127.0.0.1`), signed by `ca`. */
export function makeServerCertificate(folder: string, name: string, ca: Pair, addresses: string[]): Pair {
  const pair = { certFile: join(folder, `${name}.crt`), keyFile: join(folder, `${name}.key`) }
  const request = join(folder, `${name}.csr`)
  const extensions = join(folder, `${name}.ext`)
  openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', `/CN=${name}`, '-keyout', pair.keyFile, '-out', request], folder)
  writeFileSync(extensions, `subjectAltName=${addresses.join(',')}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`)
  openssl(['x509', '-req', '-in', request, '-CA', ca.certFile, '-CAkey', ca.keyFile, '-CAcreateserial', '-days', '30', '-extfile', extensions, '-out', pair.certFile], folder)
  return pair
}

/** The same key, protected by a passphrase (which the gateway cannot be given). */
export function encryptKey(folder: string, keyFile: string): string {
  const encrypted = join(folder, 'encrypted.key')
  openssl(['pkey', '-in', keyFile, '-aes256', '-passout', 'pass:a passphrase', '-out', encrypted], folder)
  return encrypted
}
