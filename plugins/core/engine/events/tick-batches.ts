/**
 * Gathers the calls made in one tick and sends them together: a dispatcher's pass starts its
 * payments together, and their handlers mostly end together too, so their settles can share one
 * script or statement. `send` gets the tick's items in call order and answers one result per
 * item, in that order; its failure fails every call of the tick.
 */
export function tickBatches<Item, Answer> (send: (items: Item[]) => Promise<Answer[]>): (item: Item) => Promise<Answer> {
  let waiting: Array<{ item: Item, answered: (answer: Answer) => void, failed: (error: unknown) => void }> = []
  return async (item) => await new Promise<Answer>((resolve, reject) => {
    if (waiting.push({ item, answered: resolve, failed: reject }) > 1) return
    setImmediate(() => {
      const batch = waiting
      waiting = []
      send(batch.map((waiter) => waiter.item)).then(
        (answers) => { batch.forEach(({ answered }, at) => { answered(answers[at] as Answer) }) },
        (error: unknown) => { for (const { failed } of batch) failed(error) })
    })
  })
}
