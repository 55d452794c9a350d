import { RenderTemplate } from '../../requests/render-template.ts'
import type { TemplateRenderer } from '../template-renderer.ts'
import type { Action } from './action.ts'

/** Renders a template, wrapped in the layout (paywire.template.layout) unless the parameters set layout: null. */
export class RenderTemplateAction implements Action {
  readonly renderer: TemplateRenderer
  readonly layout: string | null

  constructor (renderer: TemplateRenderer, layout: string | null = null) {
    this.renderer = renderer
    this.layout = layout
  }

  supports (request: unknown): boolean {
    return request instanceof RenderTemplate
  }

  async execute (request: RenderTemplate): Promise<void> {
    const parameters = { layout: this.layout, ...request.parameters }
    const content = await this.renderer.render(request.templateName, parameters)
    const layout = parameters.layout
    request.result = typeof layout === 'string' ? await this.renderer.render(layout, { ...parameters, content }) : content
  }
}
