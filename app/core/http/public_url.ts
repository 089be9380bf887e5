import env from '#start/env'

/** GATEWAY_PUBLIC_URL without a trailing slash: the address phones and recipients reach the gateway at. */
export function publicBaseUrl(): string | null {
  const configured = env.get('GATEWAY_PUBLIC_URL')
  return configured ? configured.replace(/\/+$/, '') : null
}
