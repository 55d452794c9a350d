import { humanifyRequest, humanifyValue } from '../../observability/humanify.ts'
import type { Logger } from '../../observability/logger.ts'
import type { Context } from './context.ts'
import type { Extension } from './extension.ts'

/**
 * Debug log of what a gateway does, one line per execute:
 *   [Paywire] 1# CapturePaymentAction::execute(Capture{model: Payment})
 *   [Paywire] 2# CaptureAction::execute(Capture{model: ArrayObject}) throws reply HttpRedirect{url: ...}
 * Only class names and URLs are logged, never models' contents.
 */
export class LogExecutedActionsExtension implements Extension {
  readonly logger: Logger

  constructor (logger: Logger) {
    this.logger = logger
  }

  onExecute (context: Context): void {
    this.logger.debug(`[Paywire] ${this.#describe(context)}`)
  }

  onPostExecute (context: Context): void {
    if (context.reply !== undefined) {
      this.logger.debug(`[Paywire] ${this.#describe(context)} throws reply ${humanifyRequest(context.reply)}`)
    } else if (context.exception !== undefined) {
      const code = (context.exception as { code?: unknown }).code
      this.logger.debug(`[Paywire] ${this.#describe(context)} throws exception ${context.exception.name}${typeof code === 'string' ? ` [${code}]` : ''}`)
    }
  }

  #describe (context: Context): string {
    const action = context.action === undefined ? 'unknown action' : humanifyValue(context.action)
    return `${context.previous.length + 1}# ${action}::execute(${humanifyRequest(context.request)})`
  }
}
