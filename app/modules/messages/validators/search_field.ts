import { MAX_SEARCH_WORDS } from '#modules/messages/stores/message_search'

/** What `q` of the messages list matches (docs/sending.md, Search). */
export const SEARCH_DESCRIPTION =
  `Search, 1 to 100 characters: messages whose text holds every word (whole words, case and accents ignored, at most ${MAX_SEARCH_WORDS}), ` +
  'a run of digits matching also any part of the number or a word of the text starting with them; a query written like a number ' +
  '(+, digits, spaces, dashes, dots, brackets) matches any part of the number; or messages to and from the contacts whose name ' +
  'holds every word. Same order and paging as without it'
