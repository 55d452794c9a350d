import { readFile } from 'node:fs/promises'
import { join, normalize, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TemplatePaths } from '../di/definitions.ts'
import { PAYWIRE_ERR_TEMPLATE_NOT_FOUND } from '../errors.ts'
import { escapeHtml } from '../html.ts'

export const CORE_TEMPLATE_NAMESPACE = 'PaywireCore'
export const CORE_TEMPLATES_DIR = fileURLToPath(new URL('./templates/', import.meta.url))

/**
 * Renders "@Namespace/file.html" templates: {{ name }} is HTML-escaped, {{{ name }}} is
 * inserted as is; dotted names read nested parameters. Each namespace may have several
 * directories, searched in order, so a gateway can override one core template while the
 * others still resolve.
 */
export class TemplateRenderer {
  readonly paths: Readonly<Record<string, readonly string[]>>
  #sources = new Map<string, Promise<string>>()

  /** The core namespace always resolves, after any override the given paths add. */
  constructor (paths: TemplatePaths = {}) {
    const merged: Record<string, string[]> = {}
    for (const [namespace, dirs] of Object.entries(paths)) merged[namespace] = [...(Array.isArray(dirs) ? dirs : [dirs])]
    merged[CORE_TEMPLATE_NAMESPACE] = [...(merged[CORE_TEMPLATE_NAMESPACE] ?? []), CORE_TEMPLATES_DIR]
    this.paths = merged
  }

  async render (templateName: string, parameters: Record<string, unknown>): Promise<string> {
    const source = await this.#load(templateName)
    return source.replace(/\{\{(\{?)\s*([\w.]+)\s*\}?\}\}/g, (_match, raw: string, name: string) => {
      const value = lookup(parameters, name)
      if (value === undefined || value === null) return ''
      return raw === '{' ? String(value) : escapeHtml(value)
    })
  }

  #load (templateName: string): Promise<string> {
    let source = this.#sources.get(templateName)
    if (source === undefined) {
      source = this.#read(templateName)
      this.#sources.set(templateName, source)
      source.catch(() => this.#sources.delete(templateName))
    }
    return source
  }

  async #read (templateName: string): Promise<string> {
    const match = /^@([\w-]+)\/(.+)$/.exec(templateName)
    const candidates = match === null
      ? []
      : (this.paths[match[1] as string] ?? []).map((dir) => ({ dir: normalize(dir), file: normalize(join(dir, match[2] as string)) }))
    for (const { dir, file } of candidates) {
      // A template name must not climb out of its namespace's directory.
      if (!file.startsWith(dir.endsWith(sep) ? dir : dir + sep)) continue
      try {
        return await readFile(file, 'utf8')
      } catch {}
    }
    throw new PAYWIRE_ERR_TEMPLATE_NOT_FOUND(templateName, candidates.map(({ file }) => file).join(', ') || 'no directory for this namespace')
  }
}

function lookup (parameters: Record<string, unknown>, name: string): unknown {
  let value: unknown = parameters
  for (const part of name.split('.')) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<string, unknown>)[part]
  }
  return value
}
