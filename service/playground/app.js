// The playground page: a Halma board that calls this service's own
// halma.v1.HalmaRules endpoint (the Connect protocol, JSON over HTTP/1.1 on
// the page's origin) and shows every exchange with its curl and grpcurl
// command lines. Plain JavaScript, no dependencies, no build step; the
// server embeds this file (service/playground/CMakeLists.txt).

const SERVICE = 'halma.v1.HalmaRules';
const SVG_NS = 'http://www.w3.org/2000/svg';
const SQUARE = 40;  // Board units per square (the SVG scales).
const MARGIN = 22;  // Room for the coordinates, left and bottom.
const MAX_LOG = 12;  // Exchanges kept in the API log.

const SEAT_ORDER = {2: ['w', 'b'], 4: ['w', 'r', 'b', 'g']};
const SEAT_NAMES = {w: 'white', r: 'red', b: 'black', g: 'green'};
const RULE_WORDS = {
  DECIDING_RULE_TARGET_FILLED: 'target filled',
  DECIDING_RULE_HOME_EXIT: 'home-exit rule',
  DECIDING_RULE_MOVE_CAP: 'move cap',
  DECIDING_RULE_EVERYONE_STUCK: 'everyone stuck',
};

const $ = (selector) => document.querySelector(selector);

const grpcPort = document.querySelector('meta[name="halma-grpc-port"]')
    .getAttribute('content');
const grpcTls = document.querySelector('meta[name="halma-grpc-tls"]')
    .getAttribute('content') === 'true';

const state = {
  presets: [],          // ListVariants' VariantInfo list.
  variant: null,        // The request's `variant`: {preset} or {custom}.
  spec: null,           // Its VariantSpec (camps, seats).
  startPosition: '',    // The variant's start, canonical.
  position: '',         // The position on the board, canonical.
  status: null,         // Its GameStatus.
  board: null,          // parsePosition(position).
  history: [],          // [{position, status}] before each played move.
  selected: null,       // The selected piece's square.
  moves: [],            // Its legal moves (LegalMoves with origin).
  chain: null,          // {squares, answer}: a chain being built.
  overlay: null,        // {squares, kind}: the path drawn when not hovering.
  focus: null,          // The board cell that takes the keyboard.
  replay: null,         // The adjudicated record being stepped through.
  vs: null,             // A game against the computer: {human, level, seed, moves, thinking}.
  hints: null,          // SuggestMove's ranked moves shown: {position, answer, candidates}.
  hintFocus: -1,        // The hint hovered or focused (its path drawn bold).
};

// ---------------------------------------------------------------- API --

class ApiError extends Error {
  constructor(exchange) {
    const answer = exchange.answer;
    super(answer && answer.message ? answer.message : exchange.text);
    this.exchange = exchange;
    this.code = answer && answer.code ? answer.code : 'unknown';
  }
}

// JSON as the README writes it: one line, ", " and ": " between items.
function jsonLine(value) {
  if (Array.isArray(value)) return '[' + value.map(jsonLine).join(', ') + ']';
  if (value !== null && typeof value === 'object') {
    return '{' + Object.entries(value)
        .map(([key, item]) => JSON.stringify(key) + ': ' + jsonLine(item))
        .join(', ') + '}';
  }
  return JSON.stringify(value);
}

// A single-quoted shell word.
function shellQuote(text) {
  return "'" + text.replace(/'/g, "'\\''") + "'";
}

function curlCommand(method, body) {
  return 'curl -s -H \'Content-Type: application/json\' -d ' +
      shellQuote(body) + ' \\\n    ' + location.origin + '/' + SERVICE +
      '/' + method;
}

function grpcurlCommand(method, body) {
  const host = location.hostname + ':' + grpcPort;
  return 'grpcurl ' + (grpcTls ? '' : '-plaintext ') + '-d ' +
      shellQuote(body) + ' \\\n    ' + host + ' ' + SERVICE + '/' + method;
}

// POSTs `request` to `method`; logs the exchange unless `log` is false
// (the exchange is then returned for the caller to log later). Throws
// ApiError for an error answer.
async function call(method, request, {label = '', log = true} = {}) {
  const body = jsonLine(request);
  let response;
  let text;
  try {
    response = await fetch('/' + SERVICE + '/' + method, {
      method: 'POST',
      headers: {'Content-Type': 'application/json'},
      body,
    });
    text = await response.text();
  } catch (error) {
    const exchange = {method, body, label, status: 0, text: String(error),
                      answer: {code: 'unavailable', message: String(error)}};
    if (log) logExchange(exchange);
    throw new ApiError(exchange);
  }
  let answer;
  try {
    answer = JSON.parse(text);
  } catch (error) {
    answer = null;
  }
  const exchange = {method, body, label, status: response.status, text, answer};
  if (log) logExchange(exchange);
  if (!response.ok) throw new ApiError(exchange);
  return {answer, exchange};
}

function element(tag, attributes = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === 'text') node.textContent = value;
    else if (key === 'className') node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function pre(className, text) {
  return element('pre', {className, tabindex: '0'}, [text]);
}

// Shows an exchange at the top of the API log. `replace`: an entry of the
// same key at the top is replaced (stepping through a record).
function logExchange(exchange, replace = '') {
  const log = $('#api-log');
  const ok = exchange.status >= 200 && exchange.status < 300;
  let answerText = exchange.text;
  if (exchange.answer !== null) answerText = JSON.stringify(exchange.answer, null, 2);
  const heading = element('h3', {}, [
    element('code', {text: exchange.method}),
    exchange.label ? ' — ' + exchange.label + ' — ' : ' — ',
    element('span', {className: ok ? 'http-ok' : 'http-bad',
                     text: exchange.status ? 'HTTP ' + exchange.status : 'no answer'}),
  ]);
  const entry = element('article', {
    className: 'exchange',
    'data-method': exchange.method,
    'data-status': String(exchange.status),
    'data-key': replace,
    'aria-label': exchange.method + ' call' + (exchange.label ? ': ' + exchange.label : ''),
  }, [
    heading,
    element('div', {className: 'exchange-grid'}, [
      element('div', {}, [element('h4', {text: 'Request (POST /' + SERVICE + '/' + exchange.method + ')'}),
                          pre('request', JSON.stringify(JSON.parse(exchange.body), null, 2))]),
      element('div', {}, [element('h4', {text: 'Answer'}), pre('answer', answerText)]),
      element('div', {className: 'commands'}, [
        element('h4', {text: 'The same with curl (HTTP/JSON)'}),
        pre('curl', curlCommand(exchange.method, exchange.body)),
        element('h4', {text: 'The same with grpcurl (gRPC)'}),
        pre('grpcurl', grpcurlCommand(exchange.method, exchange.body)),
      ]),
    ]),
  ]);
  const first = log.querySelector(':scope > .exchange');
  if (replace && first && first.dataset.key === replace) {
    first.replaceWith(entry);
    return;
  }
  let older = log.querySelector(':scope > details.older');
  if (!older) {
    older = element('details', {className: 'older'}, [element('summary', {text: 'Earlier calls'})]);
    log.append(older);
  }
  if (first) older.querySelector('summary').after(first);
  log.prepend(entry);
  const kept = older.querySelectorAll('.exchange');
  for (let i = MAX_LOG - 1; i < kept.length; ++i) kept[i].remove();
}

// ---------------------------------------------------------- the board --

function fileLetter(file) {
  return String.fromCharCode(97 + file);
}

function squareName(file, rank) {
  return fileLetter(file) + rank;
}

function parseSquare(name) {
  const match = /^([a-p])([1-9][0-9]?)$/.exec(name);
  if (!match) return null;
  return {file: match[1].charCodeAt(0) - 97, rank: Number(match[2])};
}

// A canonical position string (the server's) as squares and fields.
function parsePosition(text) {
  const [boardText, side, counts] = text.split(' ');
  const rows = boardText.split('/');
  const n = rows.length;
  const pieces = new Map();
  rows.forEach((row, index) => {
    const rank = n - index;
    let file = 0;
    let run = '';
    for (const ch of row) {
      if (ch >= '0' && ch <= '9') {
        run += ch;
        continue;
      }
      if (run) file += Number(run);
      run = '';
      pieces.set(squareName(file, rank), ch);
      ++file;
    }
  });
  return {n, pieces, side, counts: counts ? counts.split(',') : []};
}

// Seat letters of a spec in turn order.
function seatsOf(spec) {
  return SEAT_ORDER[spec.seatCount] || SEAT_ORDER[2];
}

// square -> the seat whose home camp it is in.
function campsOf(spec) {
  const n = spec.boardSize;
  const camps = new Map();
  const rows = spec.campRows || [];
  for (const seat of seatsOf(spec)) {
    rows.forEach((length, i) => {
      for (let j = 0; j < length; ++j) {
        const bottom = seat === 'w' || seat === 'g';
        const left = seat === 'w' || seat === 'r';
        const rank = bottom ? 1 + i : n - i;
        const file = left ? j : n - 1 - j;
        camps.set(squareName(file, rank), seat);
      }
    });
  }
  return camps;
}

function seatLetter(seat) {
  return seat ? seat.replace('SEAT_', '').toLowerCase() : '?';
}

function svg(tag, attributes = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

function centre(name) {
  const square = parseSquare(name);
  const n = state.board.n;
  return {x: MARGIN + square.file * SQUARE + SQUARE / 2,
          y: (n - square.rank) * SQUARE + SQUARE / 2};
}

function destinationOf(square) {
  return state.moves.find((move) => move.destination === square) || null;
}

// The destinations the board marks: every legal one, or in chain mode
// the first legs (steps and single hops), or a chain's continuations.
function markedSquares() {
  const marks = new Map();  // square -> hop count (or 'next').
  if (state.chain) {
    for (const next of state.chain.answer.continuations || []) marks.set(next, 'next');
    return marks;
  }
  const chainMode = $('#chain-mode').checked;
  for (const move of state.moves) {
    const hops = move.hops || 0;
    if (!chainMode || hops <= 1) marks.set(move.destination, hops);
  }
  return marks;
}

function cellLabel(name, piece, camp, mark) {
  let label = name + (piece ? ', ' + piece + ' piece' : ', empty');
  if (camp) label += ', ' + camp + ' camp';
  if (name === state.selected) label += ', selected';
  if (mark === 'next') label += ', hop on to here';
  else if (mark === 0) label += ', legal destination, a step';
  else if (mark !== undefined) label += ', legal destination, ' + mark + (mark === 1 ? ' hop' : ' hops');
  return label;
}

function drawBoard() {
  const board = $('#board');
  const hadFocus = board.contains(document.activeElement);
  const n = state.board.n;
  const size = MARGIN + n * SQUARE;
  board.setAttribute('viewBox', `0 0 ${size} ${size}`);
  board.dataset.position = state.position;
  board.replaceChildren();
  const camps = campsOf(state.spec);
  const marks = markedSquares();
  if (!state.focus || !parseSquare(state.focus) ||
      parseSquare(state.focus).file >= n || parseSquare(state.focus).rank > n) {
    state.focus = squareName(0, 1);
  }
  for (let rank = n; rank >= 1; --rank) {
    const row = svg('g', {role: 'row'});
    for (let file = 0; file < n; ++file) {
      const name = squareName(file, rank);
      const piece = state.board.pieces.get(name);
      const camp = camps.get(name);
      const mark = marks.get(name);
      const x = MARGIN + file * SQUARE;
      const y = (n - rank) * SQUARE;
      const cell = svg('g', {
        role: 'gridcell',
        class: 'cell' + (mark !== undefined ? ' is-dest' : '') +
            (name === state.selected ? ' selected' : '') + (piece ? ' has-piece' : ''),
        'data-square': name,
        tabindex: name === state.focus ? '0' : '-1',
        'aria-label': cellLabel(name, piece, camp, mark),
      });
      if (mark !== undefined) cell.setAttribute('data-hops', String(mark));
      if (name === state.selected) cell.setAttribute('aria-selected', 'true');
      const dark = (file + rank) % 2 === 0;
      cell.append(svg('rect', {
        class: 'sq' + (dark ? ' dark' : '') + (camp ? ' camp-' + camp : ''),
        x, y, width: SQUARE, height: SQUARE,
      }));
      if (piece) {
        cell.append(svg('circle', {class: 'piece seat-' + piece,
                                   cx: x + SQUARE / 2, cy: y + SQUARE / 2, r: SQUARE * 0.34}));
        const letter = svg('text', {class: 'piece-letter seat-' + piece,
                                    x: x + SQUARE / 2, y: y + SQUARE / 2 + 5,
                                    'text-anchor': 'middle', 'aria-hidden': 'true'});
        letter.textContent = piece;
        cell.append(letter);
      }
      if (mark !== undefined) {
        cell.append(svg('circle', {class: mark === 'next' ? 'cont' : 'dest',
                                   cx: x + SQUARE / 2, cy: y + SQUARE / 2, r: SQUARE * 0.4}));
        if (typeof mark === 'number' && mark > 0) {
          cell.append(svg('circle', {class: 'dest-badge', cx: x + SQUARE - 10, cy: y + 10, r: 9}));
          const count = svg('text', {class: 'dest-count', x: x + SQUARE - 10, y: y + 14,
                                     'text-anchor': 'middle', 'aria-hidden': 'true'});
          count.textContent = String(mark);
          cell.append(count);
        }
      }
      cell.append(svg('rect', {class: 'ring', x: x + 2, y: y + 2,
                               width: SQUARE - 4, height: SQUARE - 4}));
      cell.append(svg('rect', {class: 'focus', x: x + 4, y: y + 4,
                               width: SQUARE - 8, height: SQUARE - 8}));
      row.append(cell);
    }
    board.append(row);
  }
  const coords = svg('g', {'aria-hidden': 'true'});
  for (let i = 0; i < n; ++i) {
    const file = svg('text', {class: 'coord', x: MARGIN + i * SQUARE + SQUARE / 2,
                              y: n * SQUARE + 15, 'text-anchor': 'middle'});
    file.textContent = fileLetter(i);
    const rank = svg('text', {class: 'coord', x: MARGIN - 5, y: (n - 1 - i) * SQUARE + SQUARE / 2 + 4,
                              'text-anchor': 'end'});
    rank.textContent = String(i + 1);
    coords.append(file, rank);
  }
  board.append(coords);
  board.append(svg('g', {class: 'hint-paths', id: 'hint-overlay', 'aria-hidden': 'true'}));
  drawHints();
  board.append(svg('g', {class: 'overlay', id: 'overlay', 'aria-hidden': 'true'}));
  drawOverlay(state.overlay);
  if (hadFocus) focusCell(state.focus);
}

function drawOverlay(overlay) {
  const group = $('#overlay');
  if (!group) return;
  group.replaceChildren();
  if (!overlay || overlay.squares.length < 2) return;
  const points = overlay.squares.filter((name) => parseSquare(name)).map(centre);
  group.append(svg('polyline', {
    class: 'path ' + overlay.kind,
    points: points.map((p) => p.x + ',' + p.y).join(' '),
    'data-path': overlay.squares.join('-'),
  }));
  points.forEach((p, i) => {
    group.append(svg('circle', {class: 'path-dot ' + overlay.kind, cx: p.x, cy: p.y,
                                r: i === 0 ? 4 : 6}));
  });
}

// The hints' paths, each with its rank in a badge on its destination; the
// hint hovered or focused in the list is drawn bold.
function drawHints() {
  const group = $('#hint-overlay');
  if (!group) return;
  group.replaceChildren();
  if (!state.hints) return;
  const badges = new Map();  // destination -> badges drawn there (set side by side).
  state.hints.candidates.forEach((candidate, i) => {
    const path = candidate.move.path;
    if (path === 'pass') return;
    const points = moveSquares(path).map(centre);
    const focused = i === state.hintFocus;
    const destination = candidate.move.destination;
    const shift = badges.get(destination) || 0;
    badges.set(destination, shift + 1);
    group.append(svg('polyline', {
      class: 'path hint' + (focused ? ' focused' : ''),
      points: points.map((p) => p.x + ',' + p.y).join(' '),
      'data-path': path,
      'data-rank': String(i + 1),
    }));
    const end = points[points.length - 1];
    const x = end.x - SQUARE / 2 + 10 + (shift % 2) * 20;
    const y = end.y + SQUARE / 2 - 10 - Math.floor(shift / 2) * 20;
    group.append(svg('circle', {class: 'hint-badge' + (focused ? ' focused' : ''), cx: x, cy: y, r: 9}));
    const rank = svg('text', {class: 'hint-rank', x, y: y + 4, 'text-anchor': 'middle'});
    rank.textContent = String(i + 1);
    group.append(rank);
  });
}

function focusCell(name) {
  const cell = $(`#board .cell[data-square="${name}"]`);
  if (!cell) return;
  for (const other of document.querySelectorAll('#board .cell[tabindex="0"]')) {
    other.setAttribute('tabindex', '-1');
  }
  cell.setAttribute('tabindex', '0');
  state.focus = name;
  cell.focus();
}

// -------------------------------------------------------------- status --

function statusText(status) {
  if (!status) return '';
  const winners = (status.winners || []).map(seatLetter);
  const rule = RULE_WORDS[status.rule] || 'no rule';
  const at = status.ply ? ' at ply ' + status.ply : '';
  switch (status.state) {
    case 'STATE_IN_PROGRESS':
      return seatLetter(status.toMove) + ' to move' +
          (status.mustPass ? ', must pass' : '') +
          (status.roundCompletionTurn ? ' (round-completion turn)' : '');
    case 'STATE_WIN':
      return winners.join(', ') + ' won: ' + rule + at;
    case 'STATE_DRAW':
      return 'Draw (' + winners.join(', ') + '): ' + rule + at;
    default:
      return 'Unknown status';
  }
}

function hopWords(hops) {
  return hops === 0 ? 'a step' : hops + (hops === 1 ? ' hop' : ' hops');
}

// A MoveScore in words (docs/bot.md, "Scores"): a forced result in the
// seat's own moves, else the evaluation's estimate in turns.
function scoreText(score) {
  const kind = score && score.kind ? score.kind : 'KIND_ESTIMATE';
  const moves = score && score.moves ? score.moves : 0;
  const within = ' within ' + moves + (moves === 1 ? ' move' : ' moves');
  if (kind === 'KIND_WIN') return 'wins' + within;
  if (kind === 'KIND_LOSS') return 'loses' + within;
  if (kind === 'KIND_DRAW') return 'a draw' + within;
  const ahead = score && score.turnsAhead ? score.turnsAhead : 0;
  return ahead >= 0 ? ahead.toFixed(1) + ' turns ahead' : (-ahead).toFixed(1) + ' turns behind';
}

function renderStatus() {
  const box = $('#status');
  box.replaceChildren();
  const status = state.status;
  if (!status) return;
  box.dataset.state = status.state || '';
  box.dataset.toMove = status.toMove || '';
  box.dataset.rule = status.rule || '';
  const mover = seatLetter(status.state === 'STATE_IN_PROGRESS'
      ? status.toMove : (status.winners || [status.toMove])[0]);
  const swatch = document.createElementNS(SVG_NS, 'svg');
  swatch.setAttribute('class', 'swatch');
  swatch.setAttribute('viewBox', '0 0 20 20');
  swatch.setAttribute('aria-hidden', 'true');
  swatch.append(svg('circle', {cx: 10, cy: 10, r: 8, class: 'piece seat-' + mover,
                               stroke: '#1b1b1b', 'stroke-width': 1.5}));
  box.append(swatch);
  box.append(element('span', {className: 'status-text', text: statusText(status)}));
  const codes = [status.state];
  if (status.rule) codes.push(status.rule);
  box.append(element('code', {className: 'status-codes', text: codes.join(' ')}));
  const extra = [];
  const seats = seatsOf(state.spec);
  if (state.board && state.board.counts.length === seats.length) {
    extra.push('Moves made: ' + seats.map((seat, i) => seat + ' ' + state.board.counts[i]).join(', '));
  }
  if ((status.finished || []).length) extra.push('Finished: ' + status.finished.map(seatLetter).join(', '));
  if ((status.eliminated || []).length) extra.push('Eliminated: ' + status.eliminated.map(seatLetter).join(', '));
  box.append(element('span', {className: 'status-extra', text: extra.join('. ')}));
  if (status.state === 'STATE_IN_PROGRESS' && status.mustPass) {
    const pass = element('button', {type: 'button', id: 'pass', text: 'Pass'});
    pass.addEventListener('click', () => act(() => play('pass')));
    box.append(pass);
  }
}

function renderSelection() {
  const box = $('#selection');
  box.replaceChildren();
  if (state.chain) return;
  if (!state.selected) return;
  const moves = state.moves;
  const heading = element('p', {}, [
    element('strong', {text: state.selected}),
    moves.length ? ': ' + moves.length + (moves.length === 1 ? ' legal destination' : ' legal destinations')
                 : ': no legal move for this piece',
  ]);
  box.append(heading);
  if (!moves.length) return;
  const list = element('ul', {id: 'destinations'});
  for (const move of moves) {
    const hops = move.hops || 0;
    list.append(element('li', {'data-destination': move.destination, text:
        move.destination + ' (' + (hops === 0 ? 'step' : hops + (hops === 1 ? ' hop' : ' hops')) + ': ' + move.path + ')'}));
  }
  box.append(list);
}

function render() {
  drawBoard();
  renderStatus();
  renderSelection();
  renderChain();
  renderVs();
  renderHints();
  $('#move-undo').disabled = state.history.length === 0;
}

function verdict(kind, parts) {
  const box = $('#verdict');
  box.className = kind ? 'box-' + kind : '';
  box.replaceChildren(...parts);
}

function showError(error) {
  if (!(error instanceof ApiError)) {
    verdict('bad', [element('strong', {text: 'Error: '}), String(error)]);
    return;
  }
  verdict('bad', [
    element('strong', {text: 'Request error '}),
    element('code', {className: 'code', text: error.code}),
    ' (HTTP ' + error.exchange.status + '): ',
    element('span', {className: 'message', text: error.message}),
  ]);
}

// ------------------------------------------------------------- actions --

// Runs one user action; body[data-pending] counts those not finished (the
// browser test waits for 0).
let pending = 0;
function act(action) {
  ++pending;
  document.body.dataset.pending = String(pending);
  Promise.resolve().then(action).catch(showError).finally(() => {
    --pending;
    document.body.dataset.pending = String(pending);
  });
}

function variantRequest() {
  return state.variant;
}

async function setVariant(variant, spec) {
  state.variant = variant;
  state.spec = spec;
  const {answer} = await call('LegalMoves', {variant}, {label: 'the start position'});
  state.startPosition = answer.position;
  return answer;
}

function setPosition(position, status) {
  state.position = position;
  state.status = status;
  state.board = parsePosition(position);
  state.selected = null;
  state.moves = [];
  state.chain = null;
  state.overlay = null;
  if (state.hints && state.hints.position !== position) {
    state.hints = null;
    state.hintFocus = -1;
  }
  $('#position').value = position;
}

async function loadPreset(name) {
  const info = state.presets.find((preset) => preset.name === name);
  try {
    const answer = await setVariant({preset: name}, info.spec);
    state.vs = null;
    state.history = [];
    setPosition(answer.position, answer.status);
    verdict('', []);
    render();
  } catch (error) {
    showError(error);
  }
}

function customSpec() {
  const number = (id) => Number($(id).value || 0);
  const rows = $('#custom-camp-rows').value.split(/[\s,]+/).filter(Boolean).map(Number);
  const spec = {boardSize: number('#custom-board-size'),
                seatCount: number('#custom-seat-count'), campRows: rows};
  if (number('#custom-home-exit')) spec.homeExitLimit = number('#custom-home-exit');
  if ($('#custom-round-completion').checked) spec.roundCompletion = true;
  if ($('#custom-target-lock').checked) spec.targetLock = true;
  if (number('#custom-move-cap')) spec.moveCap = number('#custom-move-cap');
  return spec;
}

async function loadCustom() {
  const spec = customSpec();
  try {
    const answer = await setVariant({custom: spec}, spec);
    state.vs = null;
    state.history = [];
    setPosition(answer.position, answer.status);
    verdict('', []);
    render();
  } catch (error) {
    showError(error);
  }
}

// LegalMoves for a pasted position: the server checks it and answers the
// canonical form, which is what the board draws.
async function showPosition(text) {
  const request = {variant: variantRequest()};
  if (text) request.position = text;
  try {
    const {answer} = await call('LegalMoves', request, {label: 'show a position'});
    state.vs = null;
    state.history = [];
    setPosition(answer.position, answer.status);
    verdict('', []);
    render();
  } catch (error) {
    showError(error);
  }
}

async function select(square) {
  if (refuseComputersTurn()) return;
  try {
    const {answer} = await call('LegalMoves', {variant: variantRequest(), position: state.position,
                                                origin: square},
                                {label: 'moves of ' + square});
    state.selected = square;
    state.moves = answer.moves || [];
    state.chain = null;
    state.overlay = null;
    if (state.status && state.status.state !== 'STATE_IN_PROGRESS') {
      verdict('info', ['The game is over (' + statusText(state.status) + '): no piece may move.']);
    } else if (!state.moves.length && state.status && state.status.mustPass) {
      verdict('info', [seatLetter(state.status.toMove) + ' has no legal move and must pass.']);
    } else {
      verdict('', []);
    }
    render();
  } catch (error) {
    showError(error);
  }
}

function moveSquares(text) {
  return text === 'pass' ? [] : text.split('-');
}

function illegalVerdict(move, answer) {
  verdict('bad', [
    element('strong', {text: 'Illegal move '}),
    element('code', {className: 'move', text: move}),
    ': ',
    element('code', {className: 'reason', text: answer.reason}),
    ' — ',
    element('span', {className: 'message', text: answer.message}),
  ]);
}

// ValidateMove; a legal move is played (the board moves on).
async function play(move) {
  if (refuseComputersTurn()) return;
  try {
    const {answer} = await call('ValidateMove', {variant: variantRequest(), position: state.position, move},
                                {label: 'play ' + move});
    if (!answer.legal) {
      illegalVerdict(move, answer);
      state.overlay = {squares: moveSquares(move), kind: 'bad'};
      drawOverlay(state.overlay);
      return;
    }
    commit(answer);
  } catch (error) {
    showError(error);
  }
}

// Plays a legal move (ValidateMove's answer). In a game against the
// computer, a move of the human's is answered by the computer's.
function commit(answer, byComputer = false) {
  const mover = seatLetter(answer.mover);
  const hops = answer.hops || 0;
  state.history.push({position: state.position, status: state.status});
  if (state.vs) state.vs.moves.push(answer.path);
  setPosition(answer.positionAfter, answer.status);
  state.overlay = answer.path === 'pass' ? null : {squares: moveSquares(answer.path), kind: 'last'};
  verdict('good', [
    element('strong', {text: mover + (byComputer ? ' (the computer) played ' : ' played ')}),
    element('code', {className: 'move', text: answer.path}),
    ' (' + (answer.path === 'pass' ? 'pass' : hops === 0 ? 'a step' : hops + (hops === 1 ? ' hop' : ' hops')) + '). ',
    statusText(answer.status) + '.',
  ]);
  render();
  if (state.vs && !byComputer) act(computerTurns);
}

// ------------------------------------------------ against the computer --

function computerToMove() {
  const status = state.status;
  return Boolean(state.vs && status && status.state === 'STATE_IN_PROGRESS' &&
                 seatLetter(status.toMove) !== state.vs.human);
}

function refuseComputersTurn() {
  if (!computerToMove()) return false;
  verdict('info', ['The computer plays ' + seatLetter(state.status.toMove) + '; wait for its move.']);
  return true;
}

// A new game from the variant's start: the human plays the seat chosen,
// the computer every other seat at the level chosen.
async function startVs() {
  const seed = $('#vs-seed').value.trim() || '0';
  if (!/^[0-9]{1,20}$/.test(seed) || BigInt(seed) >= 2n ** 64n) {
    verdict('bad', [element('strong', {text: 'Seed: '}), 'expected digits (0 to 2^64 - 1), not "' + seed.slice(0, 40) + '".']);
    return;
  }
  const {answer} = await call('LegalMoves', {variant: variantRequest()}, {label: 'a new game against the computer'});
  state.history = [];
  setPosition(answer.position, answer.status);
  state.vs = {human: $('#vs-seat').value, level: Number($('#vs-level').value), seed, moves: [], thinking: null};
  verdict('', []);
  render();
  await computerTurns();
}

// The computer's moves (SuggestMove, then ValidateMove to play it) until
// the human is to move or the game is over: at most one turn a seat.
async function computerTurns() {
  const vs = state.vs;
  if (!vs) return;
  try {
    for (let turn = 0; turn < seatsOf(state.spec).length && computerToMove() && state.vs === vs; ++turn) {
      const seat = seatLetter(state.status.toMove);
      vs.thinking = seat;
      renderVs();
      const position = state.position;
      const request = {variant: variantRequest(), position, level: vs.level};
      if (vs.seed !== '0') request.seed = vs.seed;
      const {answer} = await call('SuggestMove', request, {label: 'the computer (' + seat + ', level ' + vs.level + ')'});
      if (state.vs !== vs || state.position !== position) return;  // Stopped meanwhile.
      const move = answer.move.path;
      const {answer: played} = await call('ValidateMove', {variant: variantRequest(), position, move},
                                          {label: 'the computer plays ' + move});
      if (state.vs !== vs || state.position !== position) return;
      if (!played.legal) throw new Error('the service suggested ' + move + ', which ValidateMove refuses: ' + played.message);
      commit(played, true);
    }
  } finally {
    vs.thinking = null;
    renderVs();
  }
}

function renderVs() {
  const seatSelect = $('#vs-seat');
  if (state.spec) {
    const seats = seatsOf(state.spec);
    const have = [...seatSelect.options].map((option) => option.value);
    if (have.join() !== seats.join()) {
      seatSelect.replaceChildren(...seats.map((seat) => element('option', {value: seat, text: seat + ' (' + SEAT_NAMES[seat] + ')'})));
    }
  }
  const vs = state.vs;
  const status = state.status;
  $('#vs-stop').hidden = !vs;
  $('#vs-record-box').hidden = !vs;
  const line = $('#vs-status');
  const result = $('#vs-result');
  if (!vs) {
    line.textContent = '';
    result.replaceChildren();
    result.className = '';
    return;
  }
  $('#vs-record').textContent = vs.moves.join(' ');
  $('#vs-ply-count').textContent = String(vs.moves.length);
  const over = !status || status.state !== 'STATE_IN_PROGRESS';
  if (over) {
    line.textContent = 'You played ' + vs.human + ' against the computer at level ' + vs.level + '.';
    const winners = (status && status.winners || []).map(seatLetter);
    let outcome;
    if (status && status.state === 'STATE_WIN') outcome = winners.includes(vs.human) ? 'You won.' : 'The computer won.';
    else outcome = 'A draw.';
    result.className = 'result-box ' + (status && status.state === 'STATE_WIN' && !winners.includes(vs.human) ? 'box-bad' : 'box-good');
    result.replaceChildren(element('strong', {text: 'Game over: '}),
                           element('span', {className: 'vs-outcome', text: statusText(status)}),
                           '. ' + outcome + ' ' + vs.moves.length + ' moves played.');
    return;
  }
  result.replaceChildren();
  result.className = '';
  if (vs.thinking) {
    line.textContent = 'The computer (' + vs.thinking + ', level ' + vs.level + ') is thinking…';
  } else if (computerToMove()) {
    line.textContent = 'The computer plays ' + seatLetter(status.toMove) + '.';
  } else {
    line.textContent = 'Your move: you play ' + vs.human + ' against the computer at level ' + vs.level + '.';
  }
}

// ---------------------------------------------------------------- hints --

// SuggestMove with `candidates`: the best moves of the side to move,
// ranked, with their scores; their paths are drawn on the board.
async function showHints() {
  const count = Math.max(1, Math.min(16, Math.round(Number($('#hint-count').value) || 3)));
  const position = state.position;
  const request = {variant: variantRequest(), position, level: Number($('#hint-level').value), candidates: count};
  const {answer} = await call('SuggestMove', request, {label: 'hints'});
  if (state.position !== position) return;
  state.hints = {position, answer, candidates: answer.candidates || []};
  state.hintFocus = -1;
  render();
}

function renderHints() {
  const box = $('#hints');
  const hints = state.hints;
  if (!hints) {
    box.replaceChildren();
    return;
  }
  const answer = hints.answer;
  const summary = element('p', {className: 'hint-summary', text:
      'For ' + seatLetter(answer.mover) + ' at level ' + answer.level + ': searched ' + (answer.depth || 0) +
      (answer.depth === 1 ? ' ply' : ' plies') + ' deep, ' + (answer.nodes || '0') + ' nodes.'});
  const list = element('ol', {id: 'hint-list'});
  hints.candidates.forEach((candidate, i) => {
    const move = candidate.move;
    const item = element('li', {'data-path': move.path, 'data-rank': String(i + 1)}, [
      element('code', {className: 'hint-move', text: move.path}),
      ' (' + (move.path === 'pass' ? 'pass' : hopWords(move.hops || 0)) + '): ',
      element('span', {className: 'hint-score', text: scoreText(candidate.score)}),
      element('span', {className: 'hint-value', text: ' (value ' + ((candidate.score && candidate.score.value) || 0) + ')'}),
    ]);
    if (!computerToMove() && state.status && state.status.state === 'STATE_IN_PROGRESS') {
      const button = element('button', {type: 'button', className: 'hint-play', text: 'Play',
                                        'aria-label': 'Play ' + move.path});
      button.addEventListener('click', () => act(() => play(move.path)));
      item.append(' ', button);
    }
    const highlight = (on) => {
      state.hintFocus = on ? i : -1;
      drawHints();
    };
    item.addEventListener('pointerenter', () => highlight(true));
    item.addEventListener('pointerleave', () => highlight(false));
    item.addEventListener('focusin', () => highlight(true));
    item.addEventListener('focusout', () => highlight(false));
    list.append(item);
  });
  box.replaceChildren(summary, list);
}

// Chain mode: ValidateMove on the chain so far, for its continuations.
async function extendChain(squares) {
  const move = squares.join('-');
  try {
    const {answer} = await call('ValidateMove', {variant: variantRequest(), position: state.position, move},
                                {label: 'chain ' + move});
    if (!answer.legal) {
      illegalVerdict(move, answer);
      return;
    }
    state.chain = {squares, answer};
    state.overlay = {squares, kind: 'chain'};
    verdict('', []);
    render();
  } catch (error) {
    showError(error);
  }
}

function renderChain() {
  const bar = $('#chain-bar');
  if (!state.chain) {
    bar.hidden = true;
    return;
  }
  bar.hidden = false;
  const next = state.chain.answer.continuations || [];
  const hops = state.chain.squares.length - 1;
  $('#chain-text').textContent = 'Chain ' + state.chain.squares.join('-') + ' (legal, ' + hops +
      (hops === 1 ? ' hop' : ' hops') + '): ' +
      (next.length ? 'play it as it stands, or hop on to a marked square: ' + next.join(', ') + '.'
                   : 'no further hop; play it.');
}

async function activate(square) {
  const board = state.board;
  if (!board) return;
  if (state.chain) {
    const next = state.chain.answer.continuations || [];
    if (next.includes(square)) {
      await extendChain([...state.chain.squares, square]);
    } else if (square === state.chain.squares[state.chain.squares.length - 1]) {
      commit(state.chain.answer);
    } else {
      verdict('info', ['Not a continuation of the chain: pick a marked square, or play or cancel the chain.']);
    }
    return;
  }
  const piece = board.pieces.get(square);
  if (state.selected === square) {
    state.selected = null;
    state.moves = [];
    state.overlay = null;
    render();
    return;
  }
  if (state.selected) {
    const move = destinationOf(square);
    if (move && $('#chain-mode').checked && (move.hops || 0) === 1) {
      await extendChain([state.selected, square]);
      return;
    }
    if (move && (!$('#chain-mode').checked || (move.hops || 0) === 0)) {
      await play(move.path);
      return;
    }
    if (piece === board.side) {
      await select(square);
      return;
    }
    // Not a destination: ask the service why (the two-square form).
    await play(state.selected + '-' + square);
    return;
  }
  if (piece === board.side) {
    await select(square);
  } else if (piece) {
    verdict('info', ['That is a ' + piece + ' piece; ' + board.side + ' is to move.']);
  }
}

// ------------------------------------------------------------- records --

// A list of moves: a JSON list, or words separated by spaces, commas or
// new lines; move numbers ("12.", "12...") are skipped.
function parseMoveList(text) {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    const list = JSON.parse(trimmed);
    if (!Array.isArray(list)) throw new Error('the JSON is not a list');
    return list.map(String);
  }
  const moves = [];
  for (let word of trimmed.split(/[\s,]+/)) {
    word = word.replace(/^\d+\.+/, '');
    if (word) moves.push(word);
  }
  return moves;
}

// The moves, variant and start position of a record in the record text
// format, from its canonical form (the server writes it: want_record_text).
function parseRecordText(text) {
  const tags = new Map();
  const moves = [];
  let body = text.replace(/\{[^}]*\}/g, ' ');
  body = body.replace(/^\s*\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$/gm, (line, name, value) => {
    tags.set(name, value.replace(/\\(.)/g, '$1'));
    return ' ';
  });
  body = body.replace(/;[^\n]*/g, ' ');
  for (let word of body.split(/\s+/)) {
    word = word.replace(/^\d+\.+/, '');
    if (/^([a-p][1-9][0-9]?)(-[a-p][1-9][0-9]?)+$|^pass$/.test(word)) moves.push(word);
  }
  return {tags, moves};
}

// The variant a record's tags name (docs/record-format.md, Tags).
function variantOfTags(tags) {
  const name = tags.get('Variant');
  const preset = state.presets.find((info) => info.name === name);
  if (preset) return {variant: {preset: name}, spec: preset.spec};
  if (name !== 'custom') return null;
  const spec = {boardSize: Number(tags.get('BoardSize')), seatCount: Number(tags.get('Seats')),
                campRows: (tags.get('CampRows') || '').split(',').map(Number)};
  if (Number(tags.get('HomeExit') || 0)) spec.homeExitLimit = Number(tags.get('HomeExit'));
  if (tags.get('RoundCompletion') === 'on') spec.roundCompletion = true;
  if (tags.get('TargetLock') === 'on') spec.targetLock = true;
  if (Number(tags.get('MoveCap') || 0)) spec.moveCap = Number(tags.get('MoveCap'));
  return {variant: {custom: spec}, spec};
}

async function adjudicate() {
  const kind = document.querySelector('input[name="record-kind"]:checked').value;
  const text = $('#record').value;
  let request;
  let moves;
  let variant = variantRequest();
  let spec = state.spec;
  let start = state.startPosition;
  try {
    if (kind === 'moves') {
      moves = parseMoveList(text);
      request = {variant};
      if ($('#record-from-position').checked) {
        start = state.position;
        request.startPosition = start;
      }
      request.moves = moves;
    } else {
      request = {recordText: text, wantRecordText: true};
    }
  } catch (error) {
    verdict('bad', [element('strong', {text: 'Cannot read the record: '}), String(error.message || error)]);
    return;
  }
  let answer;
  let exchange;
  try {
    ({answer, exchange} = await call('Adjudicate', request, {label: 'the record'}));
  } catch (error) {
    showError(error);
    $('#replay').hidden = true;
    state.replay = null;
    return;
  }
  if (kind === 'text') {
    const parsed = parseRecordText(answer.recordText || text);
    const named = variantOfTags(parsed.tags);
    if (!named) {
      verdict('info', ['Adjudicated; the record\'s variant is not one this page knows.']);
      renderRecordResult(answer);
      return;
    }
    ({variant, spec} = named);
    moves = parsed.moves;
    start = parsed.tags.get('Position') || '';
  }
  await buildReplay({variant, spec, start, moves, answer, exchange});
}

// Replays the record ply by ply (ValidateMove per move, up to the first
// illegal one) so that the slider can show every position.
async function buildReplay({variant, spec, start, moves, answer, exchange}) {
  const played = answer.movesPlayed || 0;
  const illegal = answer.illegalMove || null;
  const startCall = await call('LegalMoves', start ? {variant, position: start} : {variant},
                               {label: 'ply 0 of the record', log: false});
  const plies = [{position: startCall.answer.position, status: startCall.answer.status,
                  exchange: startCall.exchange, move: null}];
  const last = illegal ? illegal.ply : played;
  let position = plies[0].position;
  const progress = $('#record-result');
  for (let ply = 1; ply <= last && ply <= moves.length; ++ply) {
    if (ply % 50 === 0) {
      progress.className = 'result-box box-info';
      progress.textContent = 'Replaying the record for the slider: ply ' + ply + ' of ' + last + '…';
    }
    const {answer: step, exchange: stepExchange} = await call(
        'ValidateMove', {variant, position, move: moves[ply - 1]},
        {label: 'ply ' + ply + ' of the record', log: false});
    if (!step.legal) {
      plies.push({position, status: step.status, exchange: stepExchange, move: moves[ply - 1],
                  illegal: step});
      break;
    }
    position = step.positionAfter;
    const status = ply === played ? answer.status : step.status;
    plies.push({position, status, exchange: stepExchange, move: step.path, mover: step.mover,
                hops: step.hops || 0});
  }
  state.replay = {variant, spec, plies, answer, exchange,
                  decisive: answer.status && answer.status.ply ? answer.status.ply : 0,
                  illegal: illegal ? illegal.ply : 0};
  renderRecordResult(answer);
  const slider = $('#ply');
  slider.max = String(plies.length - 1);
  $('#ply-count').textContent = String(plies.length - 1);
  $('#replay').hidden = false;
  $('#ply-decisive').hidden = !state.replay.decisive;
  $('#ply-illegal').hidden = !state.replay.illegal;
  renderMarks();
  await showPly(0, false);
}

function renderRecordResult(answer) {
  const box = $('#record-result');
  box.replaceChildren();
  const illegal = answer.illegalMove;
  const parts = [element('p', {}, [element('strong', {text: 'Adjudicated: '}),
                                   element('span', {className: 'record-status', text: statusText(answer.status)}),
                                   '. ' + (answer.movesPlayed || 0) + ' legal moves played.'])];
  if (illegal) {
    parts.push(element('p', {className: 'record-illegal'}, [
      'First illegal move: ply ' + illegal.ply + ', ', element('code', {text: illegal.move}), ': ',
      element('code', {className: 'reason', text: illegal.reason}), ' — ',
      element('span', {className: 'message', text: illegal.message})]));
  }
  if (answer.result) {
    parts.push(element('p', {}, ['Result token: ', element('code', {className: 'result', text: answer.result}),
                                 answer.claimedResult ? (answer.resultMismatch
                                     ? ' (the record claims ' + answer.claimedResult + ': it differs)'
                                     : ' (as the record claims)') : '']));
  }
  box.className = 'result-box ' + (illegal ? 'box-bad' : 'box-good');
  box.append(...parts);
}

function renderMarks() {
  const marks = $('#ply-marks');
  marks.replaceChildren();
  const replay = state.replay;
  const max = replay.plies.length - 1;
  const place = (ply, className, text) => {
    const span = element('span', {className, text});
    const percent = max ? (ply / max) * 100 : 0;
    span.style.left = percent + '%';
    // Kept inside the slider's width at either end.
    span.style.transform = percent > 75 ? 'translateX(-100%)' : percent < 25 ? 'none' : 'translateX(-50%)';
    marks.append(span);
  };
  if (replay.decisive) place(replay.decisive, 'mark-decisive', '▲ ' + (RULE_WORDS[replay.answer.status.rule] || 'decided'));
  if (replay.illegal) place(replay.illegal, 'mark-illegal', '✕ illegal');
}

async function showPly(ply, logIt = true) {
  const replay = state.replay;
  if (!replay) return;
  ply = Math.max(0, Math.min(ply, replay.plies.length - 1));
  const entry = replay.plies[ply];
  const slider = $('#ply');
  slider.value = String(ply);
  $('#ply-output').textContent = String(ply);
  if (replay.variant !== state.variant) {
    state.variant = replay.variant;
    state.spec = replay.spec;
    if (replay.variant.preset) $('#variant').value = replay.variant.preset;
  }
  state.history = [];
  state.vs = null;
  setPosition(entry.position, entry.status);
  let text;
  if (ply === 0) {
    text = 'The start of the record.';
  } else if (entry.illegal) {
    state.overlay = {squares: moveSquares(entry.move), kind: 'bad'};
    text = 'Ply ' + ply + ' (illegal): ' + entry.move;
    illegalVerdict(entry.move, entry.illegal);
  } else {
    state.overlay = entry.move === 'pass' ? null : {squares: moveSquares(entry.move), kind: 'last'};
    text = 'Ply ' + ply + ': ' + seatLetter(entry.mover) + ' ' + entry.move;
    if (ply === replay.decisive) text += ' — the deciding move (' + RULE_WORDS[replay.answer.status.rule] + ')';
  }
  if (!entry.illegal) verdict('', []);
  $('#ply-move').textContent = text;
  slider.setAttribute('aria-valuetext', text);
  render();
  if (logIt) logExchange(entry.exchange, 'ply');
}

// --------------------------------------------------------------- wiring --

function onBoardKey(event) {
  const cell = event.target.closest ? event.target.closest('.cell') : null;
  if (!cell || !state.board) return;
  const square = parseSquare(cell.dataset.square);
  const n = state.board.n;
  let {file, rank} = square;
  switch (event.key) {
    case 'ArrowLeft': file = Math.max(0, file - 1); break;
    case 'ArrowRight': file = Math.min(n - 1, file + 1); break;
    case 'ArrowUp': rank = Math.min(n, rank + 1); break;
    case 'ArrowDown': rank = Math.max(1, rank - 1); break;
    case 'Home': file = 0; break;
    case 'End': file = n - 1; break;
    case 'Enter':
    case ' ':
      event.preventDefault();
      act(() => activate(cell.dataset.square));
      return;
    case 'Escape':
      state.selected = null;
      state.moves = [];
      state.chain = null;
      state.overlay = null;
      render();
      return;
    default:
      return;
  }
  event.preventDefault();
  focusCell(squareName(file, rank));
}

function hoverPath(cell) {
  const name = cell ? cell.dataset.square : null;
  const move = name && !state.chain ? destinationOf(name) : null;
  for (const active of document.querySelectorAll('#board .cell.active')) active.classList.remove('active');
  if (move && cell.classList.contains('is-dest')) {
    cell.classList.add('active');
    drawOverlay({squares: moveSquares(move.path), kind: 'hover'});
  } else {
    drawOverlay(state.overlay);
  }
}

function wire() {
  const board = $('#board');
  board.addEventListener('click', (event) => {
    const cell = event.target.closest('.cell');
    if (!cell) return;
    focusCell(cell.dataset.square);
    act(() => activate(cell.dataset.square));
  });
  board.addEventListener('keydown', onBoardKey);
  board.addEventListener('pointerover', (event) => hoverPath(event.target.closest('.cell')));
  board.addEventListener('pointerleave', () => hoverPath(null));
  board.addEventListener('focusin', (event) => {
    const cell = event.target.closest('.cell');
    if (cell) {
      state.focus = cell.dataset.square;
      hoverPath(cell);
    }
  });
  $('#variant').addEventListener('change', () => {
    const value = $('#variant').value;
    $('#custom-fields').hidden = value !== 'custom';
    if (value !== 'custom') act(() => loadPreset(value));
  });
  $('#variant-form').addEventListener('submit', (event) => {
    event.preventDefault();
    act(loadCustom);
  });
  $('#position-form').addEventListener('submit', (event) => {
    event.preventDefault();
    act(() => showPosition($('#position').value.trim()));
  });
  $('#position-start').addEventListener('click', () => act(() => showPosition('')));
  $('#move-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const move = $('#move-input').value.trim();
    if (move) act(() => play(move));
  });
  $('#move-undo').addEventListener('click', () => {
    let previous = state.history.pop();
    if (!previous) return;
    if (state.vs) {
      // Back to the human's last turn: the computer's replies go too.
      state.vs.moves.pop();
      while (state.history.length && seatLetter(previous.status.toMove) !== state.vs.human) {
        previous = state.history.pop();
        state.vs.moves.pop();
      }
    }
    const history = state.history;
    setPosition(previous.position, previous.status);
    state.history = history;
    verdict('', []);
    render();
    if (computerToMove()) act(computerTurns);
  });
  $('#opponent-form').addEventListener('submit', (event) => {
    event.preventDefault();
    act(startVs);
  });
  $('#vs-stop').addEventListener('click', () => {
    state.vs = null;
    verdict('', []);
    render();
  });
  $('#hint-form').addEventListener('submit', (event) => {
    event.preventDefault();
    act(showHints);
  });
  $('#chain-mode').addEventListener('change', () => {
    state.chain = null;
    render();
  });
  $('#chain-play').addEventListener('click', () => {
    if (state.chain) commit(state.chain.answer);
  });
  $('#chain-cancel').addEventListener('click', () => {
    state.chain = null;
    state.overlay = null;
    render();
  });
  $('#record-form').addEventListener('submit', (event) => {
    event.preventDefault();
    act(adjudicate);
  });
  const step = (ply) => act(() => showPly(ply));
  $('#ply').addEventListener('input', () => step(Number($('#ply').value)));
  $('#ply-prev').addEventListener('click', () => step(Number($('#ply').value) - 1));
  $('#ply-next').addEventListener('click', () => step(Number($('#ply').value) + 1));
  $('#ply-decisive').addEventListener('click', () => step(state.replay.decisive));
  $('#ply-illegal').addEventListener('click', () => step(state.replay.illegal));
  document.addEventListener('keydown', (event) => {
    if (!state.replay || $('#replay').hidden) return;
    const target = event.target;
    if (target.closest && (target.closest('#board') ||
        (target.matches('input, textarea, select') && target.id !== 'ply'))) return;
    if (target.id === 'ply') return;  // The range input steps itself.
    const ply = Number($('#ply').value);
    if (event.key === 'ArrowLeft') step(ply - 1);
    else if (event.key === 'ArrowRight') step(ply + 1);
    else if (event.key === 'Home') step(0);
    else if (event.key === 'End') step(state.replay.plies.length - 1);
    else return;
    event.preventDefault();
  });
}

async function start() {
  document.body.dataset.pending = '1';
  wire();
  try {
    const {answer} = await call('ListVariants', {}, {label: 'the presets'});
    state.presets = answer.variants || [];
  } catch (error) {
    showError(error);
    return;
  }
  const select = $('#variant');
  select.replaceChildren();
  for (const info of state.presets) {
    select.append(element('option', {value: info.name, text: info.name + ' (' + info.source + ')'}));
  }
  select.append(element('option', {value: 'custom', text: 'Custom variant…'}));
  select.value = state.presets.length ? state.presets[0].name : 'custom';
  if (state.presets.length) await loadPreset(state.presets[0].name);
  document.body.dataset.ready = 'true';
  document.body.dataset.pending = String(pending);
}

start();
