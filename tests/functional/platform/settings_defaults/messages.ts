/** The documented defaults of the messages module's settings fields (docs/sending.md). */
export default {
  sending: { maxAttempts: 4 },
}
