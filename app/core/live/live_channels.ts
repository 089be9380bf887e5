import type { Broadcastable } from '@boringnode/transmit/types'

/**
 * The live channels' contract (docs/live-channels.md): each channel's payload is written once,
 * as a JSON schema, by the module that broadcasts on it:
 *
 *   export const devicesChannel = defineLiveChannel('devices', { type: 'object', ... } as const)
 *   devicesChannel.broadcast(await transmit(), { type: 'device.online', deviceId, at })
 *
 * The payload's TypeScript type is read from the schema (`LivePayload`), so a broadcast that
 * strays from its schema fails the type check; the catalogue below is published in the OpenAPI
 * document as `x-live-channels`, from which dashboard/scripts/generate_api.mjs generates the
 * dashboard's payload types; tests/unit/core/live_channels.spec.ts checks the broadcasters'
 * payloads against the schemas, and the functional tests every message their stream receives
 * (tests/helpers/live_stream.ts).
 * Core names no channel: each module declares its own.
 */

/** The JSON schema subset a payload is written in: type, properties, required, items, enum, const, oneOf, anyOf, additionalProperties. */
export type LiveSchema = { readonly [keyword: string]: unknown }

type Simple<T> = T extends object ? (T extends readonly unknown[] ? T : { [K in keyof T]: T[K] }) : T

type OfType<Name, S> = Name extends 'string'
  ? string
  : Name extends 'integer' | 'number'
    ? number
    : Name extends 'boolean'
      ? boolean
      : Name extends 'null'
        ? null
        : Name extends 'array'
          ? S extends { readonly items: infer Item }
            ? LivePayloadOf<Item>[]
            : unknown[]
          : Name extends 'object'
            ? ObjectOf<S>
            : never

type ObjectOf<S> = S extends { readonly properties: infer P }
  ? Simple<
      { -readonly [K in keyof P as K extends Required<S> ? K : never]: LivePayloadOf<P[K]> } & {
        -readonly [K in keyof P as K extends Required<S> ? never : K]?: LivePayloadOf<P[K]>
      }
    >
  : S extends { readonly additionalProperties: infer Value extends object }
    ? { [key: string]: LivePayloadOf<Value> }
    : { [key: string]: never }

type Required<S> = S extends { readonly required: readonly (infer K)[] } ? K : never

/** The TypeScript type of a value that a JSON schema (written `as const`) accepts. */
export type LivePayloadOf<S> = S extends { readonly const: infer Value }
  ? Value
  : S extends { readonly enum: readonly (infer Value)[] }
    ? Value
    : S extends { readonly oneOf: readonly (infer Option)[] }
      ? LivePayloadOf<Option>
      : S extends { readonly anyOf: readonly (infer Option)[] }
        ? LivePayloadOf<Option>
        : S extends { readonly type: readonly (infer Name)[] }
          ? OfType<Name, S>
          : S extends { readonly type: infer Name }
            ? OfType<Name, S>
            : unknown

/** What broadcasts: the Transmit service, as the providers hand it over. */
export interface LiveTransmit {
  broadcast(channel: string, payload?: Broadcastable): void
}

export interface LiveChannel<Name extends string = string, Schema extends LiveSchema = LiveSchema> {
  readonly name: Name
  /** The payload's JSON schema, as published to the dashboard. */
  readonly schema: Schema
  /** Sends one payload, typed by the schema, to the streams subscribed to this channel now. */
  broadcast(transmit: LiveTransmit, payload: LivePayloadOf<Schema>): void
}

/** The payload type of a declared channel. */
export type LivePayload<Channel> = Channel extends LiveChannel<string, infer Schema> ? LivePayloadOf<Schema> : never

const catalogue = new Map<string, LiveChannel>()

/** Declares a channel and its payload's schema; a name is declared once. */
export function defineLiveChannel<const Name extends string, const Schema extends LiveSchema>(name: Name, schema: Schema): LiveChannel<Name, Schema> {
  if (catalogue.has(name)) throw new Error(`The live channel "${name}" is declared twice`)
  const channel: LiveChannel<Name, Schema> = {
    name,
    schema,
    // The one conversion: the schema's type is JSON by construction (strings, numbers, booleans, null, arrays, objects).
    broadcast: (transmit, payload) => transmit.broadcast(name, payload as Broadcastable),
  }
  catalogue.set(name, channel as unknown as LiveChannel)
  return channel
}

/** Every declared channel and its payload's schema, by name (the OpenAPI document's `x-live-channels`). */
export function liveChannelSchemas(): Record<string, LiveSchema> {
  return Object.fromEntries([...catalogue].sort(([a], [b]) => a.localeCompare(b)).map(([name, channel]) => [name, channel.schema]))
}

/** A declared channel, or undefined. */
export function liveChannel(name: string): LiveChannel | undefined {
  return catalogue.get(name)
}
