/** Renders a namespaced template ("@PaywireCore/layout.html") with parameters. */
export class RenderTemplate {
  readonly templateName: string
  readonly parameters: Record<string, unknown>
  result = ''

  constructor (templateName: string, parameters: Record<string, unknown> = {}) {
    this.templateName = templateName
    this.parameters = { ...parameters }
  }

  setParameter (name: string, value: unknown): void {
    this.parameters[name] = value
  }
}
