/**
 * What Naive UI leaves out of the accessibility tree, added once for every page rather than in
 * each page's cards and dialogs (docs/dashboard.md "Accessibility"):
 *
 * - A card's title is two nested `role="heading"` elements without a level, which assistive
 *   technology cannot place in the page's outline. Every card title sits under the page's one
 *   `<h1>`: the inner element becomes a level-2 heading, the outer one a plain box.
 * - A side panel's title (a drawer's) is a level-1 heading, a second one beside the page's own
 *   `<h1>`: it becomes a level-2 heading.
 * - A dialog (a modal card, a confirmation, a side panel) has no accessible name: it is named by
 *   its title.
 * - Buttons drawn as an icon alone have no name: a number input's minus and plus (out of the tab
 *   order: the arrow keys do the same in the input) and a list of words' "+" are named.
 * - A table's header row that scrolls sideways (a table wider than the screen) is reachable by
 *   the keyboard, so its columns can be scrolled into view without a mouse.
 * - A table's selection checkboxes point their name at a label Naive UI never draws: they are
 *   named "Select all rows" (in the header) and "Select this row".
 * - A password field's eye (show the password) is a bare box only a mouse can press: it becomes a
 *   named button in the tab order, pressed with Enter or Space like any button.
 *
 * Vue leaves these attributes alone afterwards: it writes an attribute only when its own value
 * for it changes, and it has none for these.
 */
let named = 0

function complete(root: HTMLElement) {
  for (const header of root.querySelectorAll<HTMLElement>('.n-card-header[role="heading"]')) {
    header.removeAttribute('role')
    header.querySelector('.n-card-header__main[role="heading"]')?.setAttribute('aria-level', '2')
  }
  for (const title of root.querySelectorAll<HTMLElement>('.n-drawer-header__main[role="heading"][aria-level="1"]')) title.setAttribute('aria-level', '2')
  for (const dialog of root.querySelectorAll<HTMLElement>('[role="dialog"]:not([aria-labelledby]):not([aria-label]), [role="alertdialog"]:not([aria-labelledby]):not([aria-label])')) {
    const title = dialog.querySelector<HTMLElement>('.n-card-header__main, .n-dialog__title, .n-drawer-header__main')
    if (!title) continue
    title.id ||= `dialog-title-${++named}`
    dialog.setAttribute('aria-labelledby', title.id)
  }
  for (const number of root.querySelectorAll<HTMLElement>('.n-input-number')) {
    const buttons = number.querySelectorAll<HTMLButtonElement>('.n-input__prefix > button, .n-input__suffix > button')
    // Naive draws the minus before the plus, both at the end or one on each side.
    if (buttons.length === 2) {
      nameIfUnnamed(buttons[0], 'Decrease')
      nameIfUnnamed(buttons[1], 'Increase')
    }
  }
  for (const add of root.querySelectorAll<HTMLButtonElement>('.n-dynamic-tags button.n-button--dashed')) nameIfUnnamed(add, 'Add')
  for (const header of root.querySelectorAll<HTMLElement>('.n-data-table-base-table-header:not([tabindex])')) {
    if (header.scrollWidth <= header.clientWidth) continue
    header.tabIndex = 0
    header.setAttribute('role', 'region')
    header.setAttribute('aria-label', 'Column headers, scrolled sideways with the arrow keys')
  }
  for (const box of root.querySelectorAll<HTMLElement>('.n-data-table .n-checkbox[role="checkbox"]:not([aria-label])')) {
    const label = box.getAttribute('aria-labelledby')
    if (label && document.getElementById(label)?.textContent?.trim()) continue
    box.setAttribute('aria-label', box.closest('th') ? 'Select all rows' : 'Select this row')
  }
  for (const eye of root.querySelectorAll<HTMLElement>('.n-input__eye:not([role])')) {
    eye.setAttribute('role', 'button')
    eye.tabIndex = 0
    eye.setAttribute('aria-label', 'Show or hide the characters typed')
    eye.addEventListener('keydown', pressWithKeys)
  }
}

function pressWithKeys(event: KeyboardEvent) {
  if (event.key !== 'Enter' && event.key !== ' ') return
  // The field's own keys (Enter submits its form) are not this button's.
  event.preventDefault()
  event.stopPropagation()
  ;(event.currentTarget as HTMLElement).click()
}

function nameIfUnnamed(button: HTMLElement, name: string) {
  if (!button.hasAttribute('aria-label') && !button.textContent?.trim()) button.setAttribute('aria-label', name)
}

export function completeNaiveAria(root: HTMLElement) {
  complete(root)
  new MutationObserver(() => complete(root)).observe(root, { childList: true, subtree: true })
}
