// The playground page (GET /, service/playground/) in a real browser:
// Debian's Chromium driven by playwright-core, against the real server
// binary. Every assertion compares what the page shows with what the
// test itself gets from the API over HTTP, and with what the rules say.
// Screenshots of each step go to the folder the test is given (they are
// the README's pictures, docs/images/playground/).
//
// Usage: HALMA_SERVER=path/to/halma_server SCREENSHOT_DIR=dir \
//          node --test playground.test.js
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {spawn, execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {chromium} from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const SERVER = process.env.HALMA_SERVER;
const SHOTS = process.env.SCREENSHOT_DIR || fs.mkdtempSync(path.join(os.tmpdir(), 'playground-shots-'));
const RECORDS = JSON.parse(fs.readFileSync(path.join(here, 'records.json'), 'utf8'));
const AXE = fs.readFileSync(path.join(here, 'node_modules/axe-core/axe.min.js'), 'utf8');
const BUF = path.join(here, '../../tools/node_modules/.bin/buf');
const DESKTOP = {width: 1280, height: 960};
const PHONE = {width: 390, height: 844};
const BRAINKING_START = '4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0';

let server;         // The child process.
let base;           // http://127.0.0.1:PORT (the HTTP listener).
let grpcPort;
let browser;        // The persistent context.
let userDataDir;

// ------------------------------------------------------------ helpers --

function startServer(args = []) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('HALMA_')));
  const child = spawn(SERVER, ['--host=127.0.0.1', '--port=0', '--http_port=0', ...args],
                      {env, stdio: ['ignore', 'ignore', 'pipe']});
  return new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error('no start-up line in 20 s: ' + buffer)), 20000);
    child.on('exit', (code) => reject(new Error('server exited ' + code + ': ' + buffer)));
    child.stderr.on('data', (chunk) => {
      buffer += chunk;
      for (const line of buffer.split('\n')) {
        if (!line.startsWith('{')) continue;
        let record;
        try {
          record = JSON.parse(line);
        } catch {
          continue;
        }
        if (record.event === 'server.start') {
          clearTimeout(timer);
          child.stderr.removeAllListeners('data');
          child.stderr.resume();
          child.removeAllListeners('exit');
          resolve({child, record});
          return;
        }
      }
    });
  });
}

async function stopServer(child) {
  if (!child || child.exitCode !== null) return;
  const done = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
  await done;
  clearTimeout(timer);
}

async function api(method, request) {
  const response = await fetch(`${base}/halma.v1.HalmaRules/${method}`, {
    method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(request)});
  const answer = await response.json();
  assert.equal(response.status, 200, `${method}: ${JSON.stringify(answer)}`);
  return answer;
}

// A fresh page with every request and console error recorded.
async function openPage(viewport = DESKTOP) {
  const page = await browser.newPage();
  await page.setViewportSize(viewport);
  page.requests = [];
  page.problems = [];
  page.on('request', (request) => page.requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') page.problems.push(message.text());
  });
  page.on('pageerror', (error) => page.problems.push('page error: ' + error.message));
  await page.goto(base + '/');
  await page.waitForSelector('body[data-ready="true"][data-pending="0"]', {timeout: 15000});
  return page;
}

async function settle(page) {
  await page.waitForSelector('body[data-pending="0"]', {timeout: 15000});
}

// `allow`: console messages expected (Chromium logs an error answer).
async function closePage(page, allow = []) {
  // Nothing but the service: every request went to its origin, and no
  // console error (a CSP violation is one) happened.
  for (const url of page.requests) assert.ok(url.startsWith(base + '/'), 'request off the service: ' + url);
  assert.deepEqual(page.problems.filter((text) => !allow.some((pattern) => pattern.test(text))), []);
  await page.close();
}

// A picture of the page from its top down to the API log (the board, the
// setup and the record); on a phone, the board as it is scrolled to.
async function shot(page, name) {
  const file = path.join(SHOTS, name + '.png');
  const viewport = page.viewportSize();
  if (viewport.width < 600) {
    await page.screenshot({path: file});
    return;
  }
  const bottom = await page.$eval('#api-section', (n) => n.getBoundingClientRect().top + window.scrollY);
  await page.screenshot({path: file, fullPage: true,
                         clip: {x: 0, y: 0, width: viewport.width, height: Math.round(bottom)}});
}

async function chooseVariant(page, name) {
  await page.selectOption('#variant', name);
  await settle(page);
  // selectOption on the value already chosen fires no change; the board is
  // the start of that variant either way.
  const info = (await api('ListVariants', {})).variants.find((v) => v.name === name);
  await page.waitForFunction((position) => document.querySelector('#board').dataset.position === position,
                             info.startPosition);
  return info;
}

async function boardPosition(page) {
  return page.$eval('#board', (board) => board.dataset.position);
}

async function destinations(page) {
  const marked = await page.$$eval('#board .cell.is-dest',
                                   (cells) => cells.map((cell) => [cell.dataset.square, Number(cell.dataset.hops)]));
  return Object.fromEntries(marked.sort());
}

function movesAsMap(moves) {
  return Object.fromEntries((moves || []).map((move) => [move.destination, move.hops || 0]).sort());
}

async function statusText(page) {
  return page.$eval('#status .status-text', (node) => node.textContent);
}

// The page's own words for a GameStatus (app.js statusText), from the
// API's answer: the test checks that the page shows exactly this.
function expectedStatus(status) {
  const seat = (s) => s.replace('SEAT_', '').toLowerCase();
  const rules = {DECIDING_RULE_TARGET_FILLED: 'target filled', DECIDING_RULE_HOME_EXIT: 'home-exit rule',
                 DECIDING_RULE_MOVE_CAP: 'move cap', DECIDING_RULE_EVERYONE_STUCK: 'everyone stuck'};
  const at = status.ply ? ' at ply ' + status.ply : '';
  if (status.state === 'STATE_IN_PROGRESS') {
    return seat(status.toMove) + ' to move' + (status.mustPass ? ', must pass' : '') +
        (status.roundCompletionTurn ? ' (round-completion turn)' : '');
  }
  if (status.state === 'STATE_WIN') return status.winners.map(seat).join(', ') + ' won: ' + rules[status.rule] + at;
  return 'Draw (' + status.winners.map(seat).join(', ') + '): ' + rules[status.rule] + at;
}

// The page's words for a MoveScore (app.js scoreText), from the API's
// answer.
function expectedScore(score) {
  const kind = score.kind || 'KIND_ESTIMATE';
  const moves = score.moves || 0;
  const within = ' within ' + moves + (moves === 1 ? ' move' : ' moves');
  if (kind === 'KIND_WIN') return 'wins' + within;
  if (kind === 'KIND_LOSS') return 'loses' + within;
  if (kind === 'KIND_DRAW') return 'a draw' + within;
  const ahead = score.turnsAhead || 0;
  return ahead >= 0 ? ahead.toFixed(1) + ' turns ahead' : (-ahead).toFixed(1) + ' turns behind';
}

// The hints the page shows: per rank, the move, its score in words and
// its value; and the paths drawn on the board, in rank order.
async function shownHints(page) {
  const list = await page.$$eval('#hint-list li', (items) => items.map((item) => ({
    path: item.dataset.path,
    move: item.querySelector('.hint-move').textContent,
    score: item.querySelector('.hint-score').textContent,
    value: item.querySelector('.hint-value').textContent,
  })));
  const drawn = await page.$$eval('#hint-overlay polyline', (lines) => lines.map((line) => [line.dataset.rank, line.dataset.path]));
  return {list, drawn};
}

function hintsOf(answer) {
  const candidates = answer.candidates || [];
  return {
    list: candidates.map((c) => ({path: c.move.path, move: c.move.path, score: expectedScore(c.score || {}),
                                  value: ' (value ' + ((c.score && c.score.value) || 0) + ')'})),
    drawn: candidates.map((c, i) => [String(i + 1), c.move.path]).filter(([, p]) => p !== 'pass'),
  };
}

// The newest exchange in the API log, and its command lines run: curl's
// output must be the answer shown; grpcurl's line must have grpcurl's form
// and, run as the same call through buf curl (grpcurl is not packaged for
// Debian bookworm), give the same answer.
async function checkLatestExchange(page, method) {
  const exchange = await page.$eval('#api-log > .exchange', (node) => ({
    method: node.dataset.method,
    status: node.dataset.status,
    request: node.querySelector('.request').textContent,
    answer: node.querySelector('.answer').textContent,
    curl: node.querySelector('.curl').textContent,
    grpcurl: node.querySelector('.grpcurl').textContent,
  }));
  assert.equal(exchange.method, method);
  const request = JSON.parse(exchange.request);
  const answer = JSON.parse(exchange.answer);
  const body = jsonLine(request);
  const quoted = "'" + body.replace(/'/g, "'\\''") + "'";
  assert.equal(exchange.curl, `curl -s -H 'Content-Type: application/json' -d ${quoted} \\\n` +
               `    ${base}/halma.v1.HalmaRules/${method}`);
  assert.equal(exchange.grpcurl, `grpcurl -plaintext -d ${quoted} \\\n` +
               `    127.0.0.1:${grpcPort} halma.v1.HalmaRules/${method}`);
  const curlOut = execFileSync('bash', ['-c', exchange.curl], {encoding: 'utf8', timeout: 30000});
  assert.deepEqual(JSON.parse(curlOut), answer);
  if (fs.existsSync(BUF)) {
    const bufOut = execFileSync(BUF, ['curl', '--protocol', 'grpc', '--http2-prior-knowledge', '-d', body,
                                      `http://127.0.0.1:${grpcPort}/halma.v1.HalmaRules/${method}`],
                                {encoding: 'utf8', timeout: 60000});
    assert.deepEqual(JSON.parse(bufOut), answer);
  }
  return {request, answer};
}

// As app.js writes request bodies (the README's one-line JSON).
function jsonLine(value) {
  if (Array.isArray(value)) return '[' + value.map(jsonLine).join(', ') + ']';
  if (value !== null && typeof value === 'object') {
    return '{' + Object.entries(value).map(([k, v]) => JSON.stringify(k) + ': ' + jsonLine(v)).join(', ') + '}';
  }
  return JSON.stringify(value);
}

async function axeCheck(page, label) {
  // Evaluated through the DevTools protocol, which the page's CSP (no
  // inline script) does not govern; the source is node_modules' axe-core.
  await page.evaluate(AXE);
  const results = await page.evaluate(async () => {
    const run = await window.axe.run(document, {
      runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']},
    });
    return {
      violations: run.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
                                               nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))})),
      passes: run.passes.length,
    };
  });
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(serious, [], `${label}: serious axe violations`);
  return results;
}

// Plays `move` through the page's "Try a move" field.
async function typeMove(page, move) {
  await page.fill('#move-input', move);
  await page.click('#move-try');
  await settle(page);
}

// Adjudicates a list of moves through the page and checks the replay:
// every ply's position is the one the test replays itself, the deciding
// ply's status is the API's.
async function adjudicateMoves(page, variantName, record, screenshotPrefix) {
  const request = {variant: {preset: variantName}, moves: record.moves};
  if (record.start) request.startPosition = record.start;
  const adjudication = await api('Adjudicate', request);
  if (record.start) {
    await page.fill('#position', record.start);
    await page.click('#position-show');
    await settle(page);
    assert.equal(await boardPosition(page), record.start);
    await page.check('#record-from-position');
  } else {
    await page.uncheck('#record-from-position');
  }
  await page.check('#record-kind-moves');
  await page.fill('#record', record.moves.join(' '));
  await page.click('#record-adjudicate');
  await settle(page);
  await page.waitForSelector('#replay:not([hidden])');
  const {answer} = await checkLatestExchange(page, 'Adjudicate');
  assert.deepEqual(answer, adjudication);
  assert.equal(await page.$eval('#record-result .record-status', (n) => n.textContent),
               expectedStatus(adjudication.status));
  const plies = Number(await page.$eval('#ply', (n) => n.max));
  assert.equal(plies, record.moves.length);
  // Arrow keys on the slider step one ply; the board follows.
  await page.focus('#ply');
  let position = record.start || (await api('LegalMoves', {variant: {preset: variantName}})).position;
  for (let ply = 1; ply <= 3; ++ply) {
    await page.keyboard.press('ArrowRight');
    await settle(page);
    const step = await api('ValidateMove', {variant: {preset: variantName}, position, move: record.moves[ply - 1]});
    position = step.positionAfter;
    assert.equal(await page.$eval('#ply-output', (n) => n.textContent), String(ply));
    assert.equal(await boardPosition(page), position);
    assert.equal(await statusText(page), expectedStatus(step.status));
  }
  // Arrow keys on the page (outside a text field) too.
  await page.click('#ply-move');
  await page.keyboard.press('ArrowLeft');
  await settle(page);
  assert.equal(await page.$eval('#ply-output', (n) => n.textContent), '2');
  // The deciding ply is marked with its rule; going there shows the status.
  const decisive = adjudication.status.ply;
  assert.equal(decisive, record.moves.length);
  const mark = await page.$eval('#ply-marks .mark-decisive', (n) => n.textContent);
  assert.equal(mark, '▲ target filled');
  await page.click('#ply-decisive');
  await settle(page);
  assert.equal(await page.$eval('#ply-output', (n) => n.textContent), String(decisive));
  assert.equal(await boardPosition(page), adjudication.finalPosition);
  assert.equal(await statusText(page), expectedStatus(adjudication.status));
  assert.equal(await page.$eval('#status', (n) => n.dataset.state), adjudication.status.state);
  assert.match(await page.$eval('#ply-move', (n) => n.textContent), /the deciding move \(target filled\)/);
  // The exchange shown is that ply's ValidateMove.
  const {request: plyRequest} = await checkLatestExchange(page, 'ValidateMove');
  assert.equal(plyRequest.move, record.moves[decisive - 1]);
  await shot(page, screenshotPrefix + '-record-deciding-ply');
  // End and Home.
  await page.focus('#ply');
  await page.keyboard.press('Home');
  await settle(page);
  assert.equal(await page.$eval('#ply-output', (n) => n.textContent), '0');
  return adjudication;
}

// The first illegal move of a record is shown on the board with the API's
// reason and message.
async function adjudicateIllegal(page, variantName, record, badPly, badMove, screenshotName) {
  const moves = record.moves.slice(0, badPly - 1).concat([badMove], record.moves.slice(badPly));
  const request = {variant: {preset: variantName}, moves};
  if (record.start) request.startPosition = record.start;
  const adjudication = await api('Adjudicate', request);
  assert.equal(adjudication.illegalMove.ply, badPly);
  await page.fill('#record', moves.join('\n'));
  await page.click('#record-adjudicate');
  await settle(page);
  assert.equal(await page.$eval('#record-result .record-illegal .reason', (n) => n.textContent),
               adjudication.illegalMove.reason);
  assert.equal(await page.$eval('#record-result .record-illegal .message', (n) => n.textContent),
               adjudication.illegalMove.message);
  assert.equal(await page.$eval('#ply-marks .mark-illegal', (n) => n.textContent), '✕ illegal');
  await page.click('#ply-illegal');
  await settle(page);
  assert.equal(await page.$eval('#ply-output', (n) => n.textContent), String(badPly));
  assert.equal(await page.$eval('#verdict .reason', (n) => n.textContent), adjudication.illegalMove.reason);
  assert.equal(await page.$eval('#verdict .message', (n) => n.textContent), adjudication.illegalMove.message);
  assert.equal(await boardPosition(page), adjudication.finalPosition);
  assert.equal(await page.$eval('#overlay .path', (n) => n.dataset.path), badMove);
  await shot(page, screenshotName);
}

// ---------------------------------------------------------------- tests --

before(async () => {
  assert.ok(SERVER, 'set HALMA_SERVER to the halma_server binary');
  fs.mkdirSync(SHOTS, {recursive: true});
  const started = await startServer();
  server = started.child;
  base = 'http://127.0.0.1:' + started.record.http_port;
  grpcPort = started.record.port;
  assert.equal(started.record.playground, true);
  userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'playground-chromium-'));
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: DESKTOP,
    deviceScaleFactor: 1,
  });
});

after(async () => {
  if (browser) await browser.close();
  await stopServer(server);
  if (userDataDir) fs.rmSync(userDataDir, {recursive: true, force: true});
});

describe('playground', () => {
  test('GET / and the assets: types, caching, security headers, 404 and 405', async () => {
    const page = await fetch(base + '/');
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    const csp = page.headers.get('content-security-policy');
    assert.match(csp, /^default-src 'self';/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    const html = await page.text();
    assert.match(html, new RegExp(`<meta name="halma-grpc-port" content="${grpcPort}">`));
    const assets = [...html.matchAll(/(?:href|src)="(\/playground\/[^"]+)"/g)].map((m) => m[1]);
    assert.equal(assets.length, 3);
    const types = {js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', svg: 'image/svg+xml'};
    for (const asset of assets) {
      const response = await fetch(base + asset);
      assert.equal(response.status, 200, asset);
      assert.equal(response.headers.get('content-type'), types[asset.split('?')[0].split('.').pop()]);
      assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      assert.match(response.headers.get('content-security-policy'), /^default-src 'self';/);
      // No URL of another host anywhere in the page's code.
      assert.doesNotMatch(await response.text(), /https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    }
    const missing = await fetch(base + '/playground/nothing.js');
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('x-content-type-options'), 'nosniff');
    const post = await fetch(base + '/', {method: 'POST', body: 'x'});
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    const head = await fetch(base + '/', {method: 'HEAD'});
    assert.equal(head.status, 200);
    // The API is still there beside it.
    assert.equal((await fetch(base + '/healthz')).status, 200);
  });

  test('brainking-8x8: a3\'s destinations, a move, an illegal move', async () => {
    const page = await openPage();
    await chooseVariant(page, 'brainking-8x8');
    assert.equal(await boardPosition(page), BRAINKING_START);
    assert.equal(await statusText(page), 'w to move');
    await shot(page, '01-brainking-start');
    // The destinations marked for a3 are exactly LegalMoves' for origin
    // a3, and what the rules give: b4 a step, a5 (over a4) and c3 (over
    // b3) single hops; nothing else (every other neighbour is a w piece
    // with an occupied square or a3 itself behind it).
    await page.click('#board .cell[data-square="a3"]');
    await settle(page);
    const legal = await api('LegalMoves', {variant: {preset: 'brainking-8x8'}, position: BRAINKING_START,
                                           origin: 'a3'});
    assert.deepEqual(await destinations(page), movesAsMap(legal.moves));
    assert.deepEqual(await destinations(page), {a5: 1, b4: 0, c3: 1});
    // The hop counts are drawn on the board, and listed in words.
    assert.deepEqual(await page.$$eval('#board .cell.is-dest .dest-count', (n) => n.map((x) => x.textContent)),
                     ['1', '1']);
    assert.deepEqual(await page.$$eval('#destinations li', (n) => n.map((x) => x.dataset.destination)),
                     legal.moves.map((m) => m.destination));
    await checkLatestExchange(page, 'LegalMoves');
    // Hovering a destination draws its fewest-hop path.
    await page.hover('#board .cell[data-square="a5"]');
    assert.equal(await page.$eval('#overlay .path', (n) => n.dataset.path), 'a3-a5');
    await shot(page, '02-brainking-a3-destinations');
    // Click it: ValidateMove plays it.
    await page.click('#board .cell[data-square="a5"]');
    await settle(page);
    const played = await api('ValidateMove', {variant: {preset: 'brainking-8x8'}, position: BRAINKING_START,
                                              move: 'a3-a5'});
    assert.equal(await boardPosition(page), played.positionAfter);
    assert.equal(await statusText(page), expectedStatus(played.status));
    assert.equal(await statusText(page), 'b to move');
    assert.equal(await page.$eval('#verdict .move', (n) => n.textContent), 'a3-a5');
    await checkLatestExchange(page, 'ValidateMove');
    await shot(page, '03-brainking-played');
    // An illegal attempt: b's h8 to e4 (no chain gets there).
    await page.click('#board .cell[data-square="h8"]');
    await settle(page);
    await page.click('#board .cell[data-square="e4"]');
    await settle(page);
    const refused = await api('ValidateMove', {variant: {preset: 'brainking-8x8'}, position: played.positionAfter,
                                               move: 'h8-e4'});
    assert.equal(refused.legal, undefined);
    assert.equal(await page.$eval('#verdict .reason', (n) => n.textContent), refused.reason);
    assert.equal(await page.$eval('#verdict .message', (n) => n.textContent), refused.message);
    assert.equal(await boardPosition(page), played.positionAfter);  // Nothing moved.
    await checkLatestExchange(page, 'ValidateMove');
    // A move typed in: occupied destination.
    await typeMove(page, 'h8-h7');
    const occupied = await api('ValidateMove', {variant: {preset: 'brainking-8x8'}, position: played.positionAfter,
                                                move: 'h8-h7'});
    assert.equal(occupied.reason, 'ILLEGAL_REASON_DESTINATION_OCCUPIED');
    assert.equal(await page.$eval('#verdict .reason', (n) => n.textContent), occupied.reason);
    assert.equal(await page.$eval('#verdict .message', (n) => n.textContent), occupied.message);
    await shot(page, '04-brainking-illegal');
    // The API panel, for the README.
    const panel = await page.$('#api-log > .exchange');
    await panel.screenshot({path: path.join(SHOTS, '05-api-exchange.png')});
    // Undo goes back one move.
    await page.click('#move-undo');
    assert.equal(await boardPosition(page), BRAINKING_START);
    await closePage(page);
  });

  test('brainking-8x8: a jump chain built hop by hop from the continuations', async () => {
    const page = await openPage();
    await chooseVariant(page, 'brainking-8x8');
    // After a2-c4 h8-f6, w's a1 can hop over b2 to c3 and on over c4 to c5.
    const variant = {preset: 'brainking-8x8'};
    let position = BRAINKING_START;
    for (const move of ['a2-c4', 'h8-f6']) position = (await api('ValidateMove', {variant, position, move})).positionAfter;
    await page.fill('#position', position);
    await page.click('#position-show');
    await settle(page);
    assert.equal(await boardPosition(page), position);
    await page.check('#chain-mode');
    await page.click('#board .cell[data-square="a1"]');
    await settle(page);
    // Chain mode marks the first legs only: steps and single hops.
    const legal = await api('LegalMoves', {variant, position, origin: 'a1'});
    assert.ok(legal.moves.some((m) => m.destination === 'c5' && m.hops === 2));
    assert.deepEqual(await destinations(page), movesAsMap(legal.moves.filter((m) => (m.hops || 0) <= 1)));
    await page.click('#board .cell[data-square="c3"]');
    await settle(page);
    const first = await api('ValidateMove', {variant, position, move: 'a1-c3'});
    assert.equal(first.legal, true);
    assert.ok((first.continuations || []).includes('c5'), JSON.stringify(first));
    await page.waitForSelector('#chain-bar:not([hidden])');
    assert.deepEqual(Object.keys(await destinations(page)), [...first.continuations].sort());
    await checkLatestExchange(page, 'ValidateMove');
    await page.click('#board .cell[data-square="c5"]');
    await settle(page);
    const second = await api('ValidateMove', {variant, position, move: 'a1-c3-c5'});
    assert.equal(await page.$eval('#overlay .path', (n) => n.dataset.path), 'a1-c3-c5');
    assert.deepEqual(Object.keys(await destinations(page)), [...(second.continuations || [])].sort());
    await shot(page, '06-brainking-chain');
    await page.click('#chain-play');
    await settle(page);
    assert.equal(await boardPosition(page), second.positionAfter);
    assert.equal(await page.$eval('#verdict .move', (n) => n.textContent), 'a1-c3-c5');
    await closePage(page);
  });

  test('a custom variant: drawn from its spec; a bad one shows the API\'s error', async () => {
    const page = await openPage();
    await page.selectOption('#variant', 'custom');
    await page.waitForSelector('#custom-fields:not([hidden])');
    await page.fill('#custom-board-size', '6');
    await page.selectOption('#custom-seat-count', '4');
    await page.fill('#custom-camp-rows', '2,1');
    await page.check('#custom-target-lock');
    await page.click('#custom-apply');
    await settle(page);
    const spec = {boardSize: 6, seatCount: 4, campRows: [2, 1], targetLock: true};
    const start = await api('LegalMoves', {variant: {custom: spec}});
    assert.equal(await boardPosition(page), start.position);
    assert.equal(await page.$$eval('#board .cell', (cells) => cells.length), 36);
    // Every camp square shaded with its seat: 3 squares a corner.
    for (const seat of ['w', 'r', 'b', 'g']) {
      assert.equal(await page.$$eval(`#board .sq.camp-${seat}`, (n) => n.length), 3, seat);
    }
    assert.deepEqual(JSON.parse(await page.$eval('#api-log > .exchange .request', (n) => n.textContent)),
                     {variant: {custom: spec}});
    await shot(page, '15-custom-variant');
    await page.fill('#custom-camp-rows', '4,5');
    await page.click('#custom-apply');
    await settle(page);
    const response = await fetch(`${base}/halma.v1.HalmaRules/LegalMoves`, {
      method: 'POST', headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({variant: {custom: {boardSize: 6, seatCount: 4, campRows: [4, 5], targetLock: true}}})});
    const error = await response.json();
    assert.equal(response.status, 400);
    assert.equal(await page.$eval('#verdict .code', (n) => n.textContent), error.code);
    assert.equal(await page.$eval('#verdict .message', (n) => n.textContent), error.message);
    assert.equal(await page.$eval('#api-log > .exchange', (n) => n.dataset.status), '400');
    assert.equal(await boardPosition(page), start.position);  // The board stays.
    await closePage(page, [/status of 400/]);
  });

  test('keyboard: reach a piece and a destination with Tab, arrows and Enter', async () => {
    const page = await openPage();
    await chooseVariant(page, 'brainking-8x8');
    let onBoard = false;
    for (let i = 0; i < 40 && !onBoard; ++i) {
      await page.keyboard.press('Tab');
      onBoard = await page.evaluate(() => document.activeElement.matches('#board .cell'));
    }
    assert.ok(onBoard, 'Tab never reached the board');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.square), 'a1');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.square), 'a3');
    await page.keyboard.press('Enter');
    await settle(page);
    assert.deepEqual(await destinations(page), {a5: 1, b4: 0, c3: 1});
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.square), 'b4');
    // Focus shows the path too, and a visible ring on the cell.
    assert.equal(await page.$eval('#overlay .path', (n) => n.dataset.path), 'a3-b4');
    const ring = await page.evaluate(() => getComputedStyle(document.activeElement.querySelector('.focus')).stroke);
    assert.notEqual(ring, 'none');
    await shot(page, '07-keyboard');
    await page.keyboard.press('Enter');
    await settle(page);
    const played = await api('ValidateMove', {variant: {preset: 'brainking-8x8'}, position: BRAINKING_START,
                                              move: 'a3-b4'});
    assert.equal(await boardPosition(page), played.positionAfter);
    // Focus stays on the board after it is redrawn.
    assert.equal(await page.evaluate(() => document.activeElement.dataset.square), 'b4');
    await closePage(page);
  });

  test('brainking-8x8: a 60-move record, its deciding ply and an illegal move', async () => {
    const page = await openPage();
    await chooseVariant(page, 'brainking-8x8');
    const record = RECORDS['brainking-8x8'];
    assert.equal(record.moves.length, 60);
    const adjudication = await adjudicateMoves(page, 'brainking-8x8', record, '08-brainking');
    assert.equal(expectedStatus(adjudication.status), 'b won: target filled at ply 60');
    await adjudicateIllegal(page, 'brainking-8x8', record, 12, 'a1-a2', '09-brainking-record-illegal');
    await closePage(page);
  });

  test('classic-16x16-4p: destinations, a move, an illegal move, a 60-move record', async () => {
    const page = await openPage();
    const info = await chooseVariant(page, 'classic-16x16-4p');
    assert.equal(await statusText(page), 'w to move');
    // Every w piece with moves: the page marks exactly LegalMoves' answer.
    const all = await api('LegalMoves', {variant: {preset: 'classic-16x16-4p'}, position: info.startPosition});
    const origins = [...new Set(all.moves.map((m) => m.origin))];
    assert.ok(origins.length > 0);
    for (const origin of origins) {
      await page.click(`#board .cell[data-square="${origin}"]`);
      await settle(page);
      assert.deepEqual(await destinations(page), movesAsMap(all.moves.filter((m) => m.origin === origin)), origin);
    }
    const move = all.moves.reduce((best, m) => ((m.hops || 0) > (best.hops || 0) ? m : best));
    await page.click(`#board .cell[data-square="${move.origin}"]`);
    await settle(page);
    await page.hover(`#board .cell[data-square="${move.destination}"]`);
    assert.equal(await page.$eval('#overlay .path', (n) => n.dataset.path), move.path);
    await shot(page, '10-4p-destinations');
    await page.click(`#board .cell[data-square="${move.destination}"]`);
    await settle(page);
    const played = await api('ValidateMove', {variant: {preset: 'classic-16x16-4p'}, position: info.startPosition,
                                              move: move.path});
    assert.equal(await boardPosition(page), played.positionAfter);
    assert.equal(await statusText(page), 'r to move');
    // r tries to step onto its own piece.
    const rLegal = await api('LegalMoves', {variant: {preset: 'classic-16x16-4p'}, position: played.positionAfter});
    const origin = rLegal.moves[0].origin;
    await page.click(`#board .cell[data-square="${origin}"]`);
    await settle(page);
    const target = 'a' + (info.spec.boardSize / 2);
    await page.click(`#board .cell[data-square="${target}"]`);
    await settle(page);
    const refused = await api('ValidateMove', {variant: {preset: 'classic-16x16-4p'}, position: played.positionAfter,
                                               move: origin + '-' + target});
    assert.equal(refused.legal, undefined);
    assert.equal(await page.$eval('#verdict .reason', (n) => n.textContent), refused.reason);
    assert.equal(await page.$eval('#verdict .message', (n) => n.textContent), refused.message);
    await shot(page, '11-4p-illegal');
    const record = RECORDS['classic-16x16-4p'];
    assert.equal(record.moves.length, 60);
    const adjudication = await adjudicateMoves(page, 'classic-16x16-4p', record, '12-4p');
    assert.equal(expectedStatus(adjudication.status), 'g won: target filled at ply 60');
    await closePage(page);
  });

  test('the record text format: a record with its tags, stepped to its deciding ply', async () => {
    const page = await openPage();
    await chooseVariant(page, 'brainking-8x8');
    // The canonical text of the four-player record (its Position tag
    // names the start), as the service writes it.
    const record = RECORDS['classic-16x16-4p'];
    const canonical = await api('Adjudicate', {variant: {preset: 'classic-16x16-4p'}, startPosition: record.start,
                                               moves: record.moves, wantRecordText: true});
    const text = canonical.recordText;
    assert.match(text, /^\[Variant "classic-16x16-4p"\]\n\[Position "/);
    const adjudication = await api('Adjudicate', {recordText: text});
    assert.equal(adjudication.result, 'win:g:target-filled');
    await page.check('#record-kind-text');
    await page.fill('#record', text);
    await page.click('#record-adjudicate');
    await settle(page);
    await page.waitForSelector('#replay:not([hidden])');
    const {answer} = await checkLatestExchange(page, 'Adjudicate');
    assert.equal(answer.result, adjudication.result);
    assert.equal(await page.$eval('#record-result .result', (n) => n.textContent), 'win:g:target-filled');
    // The page took the variant and the start from the tags.
    assert.equal(await page.$eval('#variant', (n) => n.value), 'classic-16x16-4p');
    assert.equal(await boardPosition(page), record.start);
    assert.equal(Number(await page.$eval('#ply', (n) => n.max)), 60);
    await page.focus('#ply');
    await page.keyboard.press('End');
    await settle(page);
    assert.equal(await page.$eval('#ply-output', (n) => n.textContent), '60');
    assert.equal(await boardPosition(page), adjudication.finalPosition);
    assert.equal(await statusText(page), 'g won: target filled at ply 60');
    await shot(page, '14-record-text');
    // A claimed result the rules do not give is pointed out.
    const wrong = text.replace(/win:g:target-filled/g, 'win:r:target-filled');
    await page.fill('#record', wrong);
    await page.click('#record-adjudicate');
    await settle(page);
    const mismatch = await api('Adjudicate', {recordText: wrong});
    assert.equal(mismatch.resultMismatch, true);
    assert.match(await page.$eval('#record-result', (n) => n.textContent),
                 /the record claims win:r:target-filled: it differs/);
    await closePage(page);
  });

  test('against the computer: a whole brainking-8x8 game against level 1, to its result', async () => {
    const page = await openPage();
    const info = await chooseVariant(page, 'brainking-8x8');
    const variant = {preset: 'brainking-8x8'};
    await page.selectOption('#vs-level', '1');
    assert.deepEqual(await page.$$eval('#vs-seat option', (n) => n.map((o) => o.value)), ['w', 'b']);
    await page.selectOption('#vs-seat', 'w');
    await page.fill('#vs-seed', '7');
    // The human (the test) takes the best hint of level 3 each turn,
    // through the hint's Play button or by clicking its origin and
    // destination on the board, in turn.
    await page.selectOption('#hint-level', '3');
    await page.fill('#hint-count', '3');
    await page.click('#vs-start');
    await settle(page);
    assert.equal(await boardPosition(page), info.startPosition);
    assert.match(await page.$eval('#vs-status', (n) => n.textContent), /^Your move: you play w against the computer at level 1/);
    let turns = 0;
    const MAX_TURNS = 300;  // brainking's home-exit rule ends a game long before.
    for (; turns < MAX_TURNS; ++turns) {
      const status = await page.$eval('#status', (n) => ({state: n.dataset.state, toMove: n.dataset.toMove}));
      if (status.state !== 'STATE_IN_PROGRESS') break;
      assert.equal(status.toMove, 'SEAT_W', 'the computer left its turn unplayed');
      if (await page.$('#status #pass')) {
        await page.click('#status #pass');
        await settle(page);
        continue;
      }
      await page.click('#hint');
      await settle(page);
      if (turns === 0) {
        // The first hint's exchange: the page's request, and its curl and
        // grpcurl lines give the answer shown.
        const {request, answer} = await checkLatestExchange(page, 'SuggestMove');
        assert.deepEqual(request, {variant, position: info.startPosition, level: 3, candidates: 3});
        assert.deepEqual(await shownHints(page), hintsOf(answer));
      }
      const first = await page.$eval('#hint-list li', (n) => n.dataset.path);
      if (turns % 2 === 0) {
        await page.click('#hint-list li:first-child .hint-play');
      } else {
        const squares = first.split('-');
        await page.click(`#board .cell[data-square="${squares[0]}"]`);
        await settle(page);
        await page.click(`#board .cell[data-square="${squares[squares.length - 1]}"]`);
      }
      await settle(page);
    }
    assert.ok(turns < MAX_TURNS, `no result after ${MAX_TURNS} turns of the human`);
    // The game as played: every move legal, the result the one shown.
    const moves = (await page.$eval('#vs-record', (n) => n.textContent)).split(' ');
    assert.equal(await page.$eval('#vs-ply-count', (n) => n.textContent), String(moves.length));
    const adjudication = await api('Adjudicate', {variant, moves});
    assert.equal(adjudication.movesPlayed, moves.length);
    assert.equal(adjudication.illegalMove, undefined);
    assert.notEqual(adjudication.status.state, 'STATE_IN_PROGRESS');
    assert.equal(await boardPosition(page), adjudication.finalPosition);
    const humanWon = adjudication.status.state === 'STATE_WIN' && adjudication.status.winners.includes('SEAT_W');
    const computerWon = adjudication.status.state === 'STATE_WIN' && !humanWon;
    assert.match(await page.$eval('#vs-result', (n) => n.textContent),
                 humanWon ? /You won\./ : computerWon ? /The computer won\./ : /A draw\./);
    // Each of the computer's moves is SuggestMove's for that position at
    // level 1 with seed 7, and each of the human's the best hint of level 3.
    let position = info.startPosition;
    let last;  // ValidateMove's answer to the last move: the status the page shows.
    for (const [ply, move] of moves.entries()) {
      const legal = await api('LegalMoves', {variant, position});
      if (legal.status.toMove === 'SEAT_B') {
        const suggested = await api('SuggestMove', {variant, position, level: 1, seed: '7'});
        assert.equal(move, suggested.move.path, `ply ${ply + 1}: the computer's move`);
      } else if (move !== 'pass') {
        const hint = await api('SuggestMove', {variant, position, level: 3, candidates: 3});
        assert.equal(move, hint.candidates[0].move.path, `ply ${ply + 1}: the human's move`);
      }
      const step = await api('ValidateMove', {variant, position, move});
      assert.equal(step.legal, true, `ply ${ply + 1}: ${move}`);
      position = step.positionAfter;
      last = step;
    }
    assert.equal(position, adjudication.finalPosition);
    for (const field of ['state', 'rule', 'winners']) assert.deepEqual(last.status[field], adjudication.status[field]);
    assert.equal(await statusText(page), expectedStatus(last.status));
    assert.equal(await page.$eval('#vs-result .vs-outcome', (n) => n.textContent), expectedStatus(last.status));
    await shot(page, '16-vs-computer-over');
    await axeCheck(page, 'a game against the computer, over');
    // After the game, a hint is the service's error naming the field.
    await page.click('#hint');
    await settle(page);
    const refused = await fetch(`${base}/halma.v1.HalmaRules/SuggestMove`, {
      method: 'POST', headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({variant, position, level: 3, candidates: 3})});
    const error = await refused.json();
    assert.equal(refused.status, 400);
    assert.match(error.message, /^position: the game is over/);
    assert.equal(await page.$eval('#verdict .code', (n) => n.textContent), error.code);
    assert.equal(await page.$eval('#verdict .message', (n) => n.textContent), error.message);
    await closePage(page, [/status of 400/]);
  });

  test('against the computer on classic-16x16-4p: the computer plays the three other seats', async () => {
    const page = await openPage();
    const info = await chooseVariant(page, 'classic-16x16-4p');
    const variant = {preset: 'classic-16x16-4p'};
    assert.deepEqual(await page.$$eval('#vs-seat option', (n) => n.map((o) => o.value)), ['w', 'r', 'b', 'g']);
    await page.selectOption('#vs-level', '2');
    await page.selectOption('#vs-seat', 'r');
    await page.fill('#vs-seed', '0');
    await page.click('#vs-start');
    await settle(page);
    // w (the computer) has moved; r is to move.
    const first = (await page.$eval('#vs-record', (n) => n.textContent)).split(' ');
    assert.equal(first.length, 1);
    const w = await api('SuggestMove', {variant, position: info.startPosition, level: 2});
    assert.equal(first[0], w.move.path);
    const afterW = await api('ValidateMove', {variant, position: info.startPosition, move: w.move.path});
    assert.equal(await boardPosition(page), afterW.positionAfter);
    assert.equal(await statusText(page), 'r to move');
    await page.click('#hint');
    await settle(page);
    const hint = await page.$eval('#hint-list li', (n) => n.dataset.path);
    await page.click('#hint-list li:first-child .hint-play');
    await settle(page);
    // r's move, then b's, g's and w's (the computer's), then r again.
    const moves = (await page.$eval('#vs-record', (n) => n.textContent)).split(' ');
    assert.equal(moves.length, 5);
    assert.equal(moves[1], hint);
    let position = afterW.positionAfter;
    for (const ply of [1, 2, 3, 4]) {
      if (ply > 1) {
        const suggested = await api('SuggestMove', {variant, position, level: 2});
        assert.equal(moves[ply], suggested.move.path, `ply ${ply + 1}`);
      }
      position = (await api('ValidateMove', {variant, position, move: moves[ply]})).positionAfter;
    }
    assert.equal(await boardPosition(page), position);
    assert.equal(await statusText(page), 'r to move');
    // Undo goes back to r's previous turn, the computer's replies with it.
    await page.click('#move-undo');
    await settle(page);
    assert.equal(await boardPosition(page), afterW.positionAfter);
    assert.equal(await page.$eval('#vs-record', (n) => n.textContent), first.join(' '));
    await closePage(page);
  });

  test('hints: the ranked candidates with their scores and paths, as SuggestMove gives them', async () => {
    const page = await openPage();
    await chooseVariant(page, 'brainking-8x8');
    const variant = {preset: 'brainking-8x8'};
    let position = BRAINKING_START;
    for (const move of ['b1-d3', 'h7-f5', 'a2-c4']) position = (await api('ValidateMove', {variant, position, move})).positionAfter;
    await page.fill('#position', position);
    await page.click('#position-show');
    await settle(page);
    await page.selectOption('#hint-level', '6');
    await page.fill('#hint-count', '5');
    await page.click('#hint');
    await settle(page);
    const direct = await api('SuggestMove', {variant, position, level: 6, candidates: 5});
    assert.equal(direct.candidates.length, 5);
    const shown = await shownHints(page);
    assert.deepEqual(shown, hintsOf(direct));
    assert.equal(shown.drawn.length, 5);
    const {request, answer} = await checkLatestExchange(page, 'SuggestMove');
    assert.deepEqual(request, {variant, position, level: 6, candidates: 5});
    assert.deepEqual(answer, direct);
    assert.equal(await page.$eval('#hints .hint-summary', (n) => n.textContent),
                 `For b at level 6: searched ${direct.depth} ${direct.depth === 1 ? 'ply' : 'plies'} deep, ${direct.nodes} nodes.`);
    // Hovering a hint draws its path bold.
    await page.hover('#hint-list li:nth-child(2)');
    assert.equal(await page.$eval('#hint-overlay polyline.focused', (n) => n.dataset.rank), '2');
    await shot(page, '17-hints');
    await axeCheck(page, 'hints shown');
    // Playing the second hint plays its path; the hints go with the position.
    await page.click('#hint-list li:nth-child(2) .hint-play');
    await settle(page);
    const played = await api('ValidateMove', {variant, position, move: direct.candidates[1].move.path});
    assert.equal(await boardPosition(page), played.positionAfter);
    assert.equal(await page.$('#hint-list'), null);
    assert.equal(await page.$$eval('#hint-overlay polyline', (n) => n.length), 0);
    await closePage(page);
  });

  test('phone-sized screen: no horizontal scroll, the board fits', async () => {
    for (const variant of ['brainking-8x8', 'classic-16x16-4p']) {
      const page = await openPage(PHONE);
      await chooseVariant(page, variant);
      await page.click('#board .cell[data-square="b2"]');
      await settle(page);
      await page.$eval('#board-section', (n) => n.scrollIntoView());
      const sizes = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        width: window.innerWidth,
        board: document.querySelector('#board').getBoundingClientRect().toJSON(),
      }));
      assert.ok(sizes.scroll <= sizes.width, `${variant}: page ${sizes.scroll} px wide in ${sizes.width}`);
      assert.ok(sizes.board.left >= 0 && sizes.board.right <= sizes.width, `${variant}: board off screen`);
      assert.ok(sizes.board.width >= 0.8 * sizes.width, `${variant}: board only ${sizes.board.width} px`);
      if (variant === 'brainking-8x8') await shot(page, '13-phone');
      await axeCheck(page, 'phone ' + variant);
      await closePage(page);
    }
  });

  test('accessibility: axe-core finds no serious or critical violation', async () => {
    const page = await openPage();
    const report = [];
    let result = await axeCheck(page, 'start');
    report.push(['start', result]);
    await page.click('#board .cell[data-square="a3"]');
    await settle(page);
    result = await axeCheck(page, 'a piece selected');
    report.push(['selected', result]);
    await page.fill('#record', RECORDS['brainking-8x8'].moves.join(' '));
    await page.click('#record-adjudicate');
    await settle(page);
    await page.selectOption('#variant', 'custom');
    result = await axeCheck(page, 'record and custom variant');
    report.push(['record', result]);
    fs.writeFileSync(path.join(SHOTS, 'axe-report.json'), JSON.stringify(report, null, 2) + '\n');
    await closePage(page);
  });

  test('--playground=false: GET / is 404, the API still answers', async () => {
    const {child, record} = await startServer(['--playground=false']);
    try {
      assert.equal(record.playground, false);
      const other = 'http://127.0.0.1:' + record.http_port;
      assert.equal((await fetch(other + '/')).status, 404);
      // The Connect handler takes /x/y.z for a method: 501 unimplemented.
      const asset = await fetch(other + '/playground/app.js');
      assert.ok([404, 501].includes(asset.status), String(asset.status));
      assert.doesNotMatch(await asset.text(), /SERVICE/);
      const answer = await fetch(other + '/halma.v1.HalmaRules/ListVariants',
                                 {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'});
      assert.equal(answer.status, 200);
    } finally {
      await stopServer(child);
    }
  });
});
