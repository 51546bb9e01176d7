// biome-ignore-all format: kept to ten lines for the README
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const secret = process.env.WEBHOOK_SECRET; // whsec_… as shown once when the endpoint was created
const same = (a, b) => { const x = Buffer.from(a), y = Buffer.from(b); return x.length === y.length && timingSafeEqual(x, y); };
createServer((req, res) => { const chunks = []; req.on('data', (c) => chunks.push(c)).on('end', () => {
  const raw = Buffer.concat(chunks), h = req.headers, hmac = (key) => createHmac('sha256', key);
  const seed = same(h['x-service-signature'] ?? '', `sha256=${hmac(secret).update(raw).digest('hex')}`);
  const v1 = `v1,${hmac(Buffer.from(secret.slice(6), 'base64')).update(`${h['webhook-id']}.${h['webhook-timestamp']}.`).update(raw).digest('base64')}`;
  const standard = (h['webhook-signature'] ?? '').split(' ').some((s) => same(s, v1)) && Math.abs(Date.now() / 1000 - Number(h['webhook-timestamp'])) < 300;
  res.writeHead(seed && standard ? 200 : 401).end(); }); }).listen(Number(process.env.PORT ?? 4000), '127.0.0.1');
