// The least a service built on Crateflow's stack can weigh: every library the core uses at startup (koa,
// @koa/router, pino, ajv with formats, typebox, yaml, tsyringe + reflect-metadata) loaded and used once, and one
// route answering GET /health. bench/startup.bench.ts bundles it the way `npm run build` bundles the service and
// starts it beside the service, so the memory target can be read against what the stack alone takes.
import 'reflect-metadata';
import Koa from 'koa';
import Router from '@koa/router';
import { pino } from 'pino';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { Type } from 'typebox';
import { parse } from 'yaml';
import { container } from 'tsyringe';

const log = pino({ level: 'info' });
const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, validateSchema: false });
formats.default(ajv);
const validate = ajv.compile(Type.Object({ port: Type.Integer({ minimum: 0 }), host: Type.String({ format: 'hostname' }) }));
const config: unknown = parse(`port: ${Number(process.env.PORT ?? 0)}\nhost: localhost\n`);
if (!validate(config)) throw new Error(JSON.stringify(validate.errors));
container.createChildContainer();

const app = new Koa();
const router = new Router();
router.get('/health', (ctx) => {
  ctx.body = { status: 'ok' };
});
app.use(router.routes());
app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => log.info('listening'));
