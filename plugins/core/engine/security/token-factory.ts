import { PAYWIRE_ERR_BASE_URL_REQUIRED, PAYWIRE_ERR_INVALID_BASE_URL } from '../errors.ts'
import { Identity } from '../model/identity.ts'
import { Token, type TokenKind } from '../model/token.ts'
import type { StorageRegistry } from '../storage/storage-registry.ts'
import { affinityTag, generateTokenHash } from '../random.ts'
import type { TokenStorage } from './token-storage.ts'
import { isPlainAbsoluteUrl } from './url-paths.ts'

export const TOKEN_PARAMETER = 'paywire_token'
/** A path containing this placeholder carries the token in the path instead of the query. */
export const TOKEN_PLACEHOLDER = ':token'

/** Query parameters to merge; null or undefined removes a key, an empty string too. */
export type UrlParameters = Record<string, string | number | boolean | null | undefined>

/** A fixed origin, or a function giving the origin of the request being served. */
export type BaseUrl = string | (() => string | undefined)

export interface TokenSpec {
  gatewayName: string
  model: object | null
  targetPath: string
  targetParameters?: UrlParameters
  afterPath?: string | null
  afterParameters?: UrlParameters
  kind?: TokenKind
}

export function assertBaseUrl (url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new PAYWIRE_ERR_INVALID_BASE_URL(url)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new PAYWIRE_ERR_INVALID_BASE_URL(url)
  // A trailing slash makes relative paths append to the base path instead of replacing its last segment.
  return parsed.href.endsWith('/') ? parsed.href : `${parsed.href}/`
}

/**
 * Makes tokens with absolute URLs. Relative paths resolve against the base URL (WHATWG
 * rules: "/payment/capture" is origin-relative, "capture" appends to the base path);
 * absolute http(s) paths are used as given and keep their query and fragment.
 */
export class TokenFactory {
  readonly tokenStorage: TokenStorage
  readonly storages: StorageRegistry
  #baseUrl: BaseUrl | undefined
  #checkedBase: { given: string, checked: string } | undefined
  /** Per base, then per path: a key joining the two was a new string to hash on every token. */
  #placeholderUrls = new Map<string, Map<string, PlaceholderUrl | undefined>>()
  #placeholderCount = 0

  constructor (tokenStorage: TokenStorage, storages: StorageRegistry, baseUrl?: BaseUrl) {
    this.tokenStorage = tokenStorage
    this.storages = storages
    this.#baseUrl = typeof baseUrl === 'string' ? assertBaseUrl(baseUrl) : baseUrl
  }

  /** Creates and stores one token. */
  async createToken (gatewayName: string, model: object | null, targetPath: string, targetParameters: UrlParameters = {},
    afterPath: string | null = null, afterParameters: UrlParameters = {}): Promise<Token> {
    const token = this.buildToken({ gatewayName, model, targetPath, targetParameters, afterPath, afterParameters })
    await this.tokenStorage.save([token])
    return token
  }

  /** Builds a token without storing it, so several can be stored in one round trip. */
  buildToken (spec: TokenSpec): Token {
    const details = this.#identify(spec.model)
    const token = new Token(generateTokenHash(details === null ? '' : affinityTag(details.modelName, details.id)))
    token.gatewayName = spec.gatewayName
    token.kind = spec.kind ?? 'capture'
    token.details = details
    token.targetUrl = this.buildUrl(spec.targetPath, spec.targetParameters ?? {}, token.hash)
    if (spec.afterPath !== undefined && spec.afterPath !== null) {
      token.afterUrl = this.buildUrl(spec.afterPath, spec.afterParameters ?? {})
    }
    return token
  }

  /**
   * Resolves a path against the base URL and merges parameters into its query; with a
   * hash, the token goes into the ":token" placeholder or else first in the query.
   */
  buildUrl (path: string, parameters: UrlParameters, hash?: string): string {
    const absolute = /^https?:\/\//i.test(path)
    const base = absolute ? '' : this.#resolveBase()
    if (isEmpty(parameters)) {
      if (hash !== undefined) {
        // The routes' own case (a ":token" path, nothing to merge), on every prepare: no query to build.
        const plain = this.#placeholderUrl(base, path)
        if (plain !== undefined) return plain.head + hash + plain.tail
      } else if (absolute && isPlainAbsoluteUrl(path)) {
        // A capture token's after URL (another token's target URL): already as the parser writes it, no query to rebuild.
        return path
      }
    }
    const url = absolute ? new URL(path) : new URL(path, base)
    const query = new URLSearchParams()
    if (hash !== undefined) {
      if (url.pathname.includes(TOKEN_PLACEHOLDER)) url.pathname = url.pathname.replace(TOKEN_PLACEHOLDER, hash)
      else query.set(TOKEN_PARAMETER, hash)
    }
    // The path's own pairs keep their order, repeated keys included; a parameter replaces
    // every value of its key, at the key's first place.
    const pairs: Array<[string, UrlParameters[string]]> = []
    const placed = new Set<string>()
    for (const [key, value] of url.searchParams) {
      if (!Object.hasOwn(parameters, key)) pairs.push([key, value])
      else if (!placed.has(key)) pairs.push([key, parameters[key]])
      placed.add(key)
    }
    for (const [key, value] of Object.entries(parameters)) {
      if (!placed.has(key)) pairs.push([key, value])
    }
    const tokenSet = query.has(TOKEN_PARAMETER)
    for (const [key, value] of pairs) {
      if (value === null || value === undefined || value === '' || (tokenSet && key === TOKEN_PARAMETER)) continue
      query.append(key, String(value))
    }
    url.search = query.toString()
    return url.href
  }

  /**
   * When the resolved path is origin + a path with the placeholder and nothing else: the
   * URL's text before and after the placeholder (its first one), cached per base and path.
   * Two concatenations per token then, instead of reading a URL object's origin and path
   * (2% of the server's CPU under load).
   */
  #placeholderUrl (base: string, path: string): PlaceholderUrl | undefined {
    let byPath = this.#placeholderUrls.get(base)
    if (byPath !== undefined) {
      const known = byPath.get(path)
      if (known !== undefined || byPath.has(path)) return known
    }
    const url = base === '' ? new URL(path) : new URL(path, base)
    const at = url.pathname.indexOf(TOKEN_PLACEHOLDER)
    const plain = at !== -1 && url.search === '' && url.hash === '' && url.username === '' && url.password === ''
    const template = plain ? { head: url.origin + url.pathname.slice(0, at), tail: url.pathname.slice(at + TOKEN_PLACEHOLDER.length) } : undefined
    // Paths come from configuration and bases from the few origins a shop answers on; stay bounded all the same.
    if (this.#placeholderCount >= 256) {
      this.#placeholderUrls.clear()
      this.#placeholderCount = 0
      byPath = undefined
    }
    if (byPath === undefined) {
      byPath = new Map()
      this.#placeholderUrls.set(base, byPath)
    }
    byPath.set(path, template)
    this.#placeholderCount++
    return template
  }

  #resolveBase (): string {
    if (typeof this.#baseUrl !== 'function') {
      if (this.#baseUrl === undefined) throw new PAYWIRE_ERR_BASE_URL_REQUIRED()
      return this.#baseUrl
    }
    const base = this.#baseUrl()
    if (base === undefined) throw new PAYWIRE_ERR_BASE_URL_REQUIRED()
    // A base from a function is mostly the same origin again: check each new one once.
    if (this.#checkedBase?.given !== base) this.#checkedBase = { given: base, checked: assertBaseUrl(base) }
    return this.#checkedBase.checked
  }

  #identify (model: object | null): Identity | null {
    if (model === null) return null
    if (model instanceof Identity) return model
    return this.storages.get(model).identify(model)
  }
}

interface PlaceholderUrl {
  head: string
  tail: string
}

function isEmpty (parameters: UrlParameters): boolean {
  return Object.keys(parameters).length === 0
}
