// A real SMTP server for tests: keeps every mail and serves them as JSON over HTTP
// (GET /messages?to=address). Usage: node smtp-sink.mjs <smtpPort> <httpPort>
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';
import http from 'node:http';

const [smtpPort, httpPort] = process.argv.slice(2).map(Number);
const messages = [];

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  onData(stream, session, callback) {
    simpleParser(stream)
      .then((mail) => {
        const text = mail.text ?? '';
        const link = (text.match(/https?:\/\/\S+\/auth\/v1\/verify\?\S+/) ?? [''])[0];
        for (const rcpt of session.envelope.rcptTo) {
          messages.push({ to: rcpt.address.toLowerCase(), subject: mail.subject, text, html: mail.html || '', link, at: Date.now() });
        }
        callback();
      })
      .catch(callback);
  },
});
smtp.listen(smtpPort, '127.0.0.1');

http
  .createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const to = url.searchParams.get('to')?.toLowerCase();
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(messages.filter((m) => !to || m.to === to)));
  })
  .listen(httpPort, '127.0.0.1');
