import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

/**
 * A GSM modem simulated on a pseudo-terminal: a small Python program opens a pty pair, answers
 * AT commands on it like a modem in text mode, and tells the test what it was asked (one JSON
 * line per event on stdout). The test makes SMS arrive and receipts come through its stdin.
 */
const MODEM = String.raw`
import os, tty, sys, select, json
master, slave = os.openpty()
tty.setraw(slave)
print(json.dumps({"event": "ready", "path": os.ttyname(slave)}), flush=True)
buf, mr, storage, awaiting = b"", 0, {}, None
def out(text): os.write(master, text.encode("latin1"))
while True:
    ready, _, _ = select.select([master, sys.stdin], [], [])
    if sys.stdin in ready:
        line = sys.stdin.readline()
        if not line: break
        cmd = json.loads(line)
        if cmd["type"] == "inbound":
            index = max(list(storage) + [0]) + 1
            storage[index] = (cmd["from"], cmd["body"])
            out('\r\n+CMTI: "SM",%d\r\n' % index)
        elif cmd["type"] == "receipt":
            out('\r\n+CDS: 6,%d,"+33612345678",145,"26/05/04,09:30:00+08","26/05/04,09:30:05+08",%d\r\n' % (cmd["mr"], cmd.get("status", 0)))
    if master in ready:
        buf += os.read(master, 4096)
        while True:
            if awaiting is not None:
                if b"\x1a" not in buf: break
                text, _, buf = buf.partition(b"\x1a")
                mr += 1
                body = text.decode("utf-8")
                print(json.dumps({"event": "sent", "to": awaiting, "text": body, "mr": mr}), flush=True)
                out("\r\n+CMS ERROR: 500\r\n" if "FAIL" in body else "\r\n+CMGS: %d\r\n\r\nOK\r\n" % mr)
                awaiting = None
                continue
            if b"\r" not in buf: break
            line, _, buf = buf.partition(b"\r")
            line = line.strip().decode("latin1")
            if not line: continue
            print(json.dumps({"event": "command", "line": line}), flush=True)
            if line.startswith("AT+CMGS="):
                awaiting = line.split('"')[1]
                out("\r\n> ")
            elif line.startswith("AT+CMGR="):
                number, body = storage.get(int(line.split("=")[1]), (None, None))
                out("\r\nERROR\r\n" if number is None else '\r\n+CMGR: "REC UNREAD","%s",,"26/05/04,09:30:00+08"\r\n%s\r\n\r\nOK\r\n' % (number, body))
            elif line.startswith("AT+CMGD="):
                storage.pop(int(line.split("=")[1]), None)
                out("\r\nOK\r\n")
            elif line == "AT+CSQ":
                out("\r\n+CSQ: 23,99\r\n\r\nOK\r\n")
            else:
                out("\r\nOK\r\n")
`

export interface ModemEvent {
  event: string
  [field: string]: unknown
}

export async function startFakeModem() {
  const folder = mkdtempSync(join(tmpdir(), 'fake-modem-'))
  writeFileSync(join(folder, 'modem.py'), MODEM)
  const child: ChildProcess = spawn('python3', [join(folder, 'modem.py')], { stdio: ['pipe', 'pipe', 'inherit'] })
  const events: ModemEvent[] = []
  const waiters: Array<() => void> = []
  createInterface({ input: child.stdout! }).on('line', (line) => {
    events.push(JSON.parse(line))
    waiters.splice(0).forEach((wake) => wake())
  })
  const waitFor = async (predicate: (event: ModemEvent) => boolean): Promise<ModemEvent> => {
    for (;;) {
      const found = events.find(predicate)
      if (found) return found
      await new Promise<void>((resolve) => waiters.push(resolve))
    }
  }
  const ready = await waitFor((event) => event.event === 'ready')
  return {
    path: String(ready.path),
    events,
    waitFor,
    tell: (command: Record<string, unknown>) => child.stdin!.write(`${JSON.stringify(command)}\n`),
    stop() {
      child.kill()
      rmSync(folder, { recursive: true, force: true })
    },
  }
}
