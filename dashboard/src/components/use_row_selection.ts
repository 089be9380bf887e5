import { computed, h, ref, watch, type Ref } from 'vue'
import { NCheckbox, type DataTableColumn } from 'naive-ui'

/**
 * Rows ticked in a list (docs/dashboard.md, Selecting many): a checkbox column for a Naive UI
 * table, the header's box ticking every row shown. Drawn as named checkboxes rather than the
 * table's own selection column, whose boxes have no accessible name. Ids of rows no longer shown
 * (a reload, other filters) are let go, so an action never reaches a row out of sight.
 */
export function useRowSelection<Row>(rows: Ref<Row[]>, keyOf: (row: Row) => string, nameOf: (row: Row) => string, what: string) {
  const selected = ref<Set<string>>(new Set())
  const shownKeys = computed(() => rows.value.map(keyOf))
  const allShown = computed(() => shownKeys.value.length > 0 && shownKeys.value.every((key) => selected.value.has(key)))
  const someShown = computed(() => shownKeys.value.some((key) => selected.value.has(key)))

  watch(shownKeys, (keys) => {
    const shown = new Set(keys)
    if ([...selected.value].some((key) => !shown.has(key))) selected.value = new Set([...selected.value].filter((key) => shown.has(key)))
  })

  function toggle(key: string, on: boolean) {
    const next = new Set(selected.value)
    if (on) next.add(key)
    else next.delete(key)
    selected.value = next
  }
  const selectShown = (on: boolean) => (selected.value = on ? new Set(shownKeys.value) : new Set())
  const clear = () => (selected.value = new Set())

  const column: DataTableColumn<Row> = {
    key: 'selected',
    width: 44,
    title: () =>
      h(NCheckbox, {
        checked: allShown.value,
        indeterminate: someShown.value && !allShown.value,
        'aria-label': `Select every ${what} shown`,
        'data-testid': 'select-shown',
        onUpdateChecked: (on: boolean) => selectShown(on),
      }),
    render: (row) =>
      h(NCheckbox, {
        checked: selected.value.has(keyOf(row)),
        'aria-label': `Select ${nameOf(row)}`,
        onUpdateChecked: (on: boolean) => toggle(keyOf(row), on),
      }),
  }

  const ids = computed(() => [...selected.value])
  return { selected, ids, allShown, column, clear, selectShown, toggle }
}
