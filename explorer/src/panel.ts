// The side panel: a clicked node (schema, key, each ID it holds as a button that expands its holders, and its
// history), or a clicked hot ID or line (the ID and who holds it). Text only through textContent: IDs are data.
import type { HistoryEntry, HistoryId, Outcome, SeparateResult } from './api';
import { type CollectedNode, type DrawnChain, type GraphType, type IdPair, idText, type WhyAnswer, type WhyId } from './model';
import type { ShownProblem } from './problems';

/** What the panel needs to know of the drawing around a node. */
export interface PanelContext {
  /** How many drawn nodes hold the ID. */
  holderCount(id: IdPair): number;
  hotAt: number;
  types: Map<string, GraphType>;
}

export interface PanelActions {
  onExpand(id: IdPair): void;
  onSelectNode(ref: string): void;
  onClose(): void;
  /** "Why is this one person with…": the next node clicked is the other. */
  onWhyFrom(ref: string): void;
}

/** What the panel shows of a `_why` answer, and what "separate" does. */
export interface WhyShown {
  a: CollectedNode;
  b: CollectedNode;
  outcome: Outcome<WhyAnswer>;
  chain: DrawnChain | null;
  /** The IDs the two hold in common now: what separating removes from one side. */
  shared: IdPair[];
  /** Null when separating can be asked; else why not. */
  cannotSeparate: string | null;
  separate(side: 'A' | 'B'): Promise<Outcome<SeparateResult>>;
}

type Child = Node | string;

function el(tag: string, className: string | null, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  if (className) element.className = className;
  for (const child of children) element.append(child);
  return element;
}

/** A problem as a line of the panel (the page-wide alert is for the query itself). */
function problemLine(problem: ShownProblem): HTMLElement {
  return el('p', 'panel-message problem', `${problem.title}: ${problem.detail}`, ...(problem.hint ? [` ${problem.hint}`] : []));
}

const whyIdText = (id: WhyId): string => (id.id === null ? `${id.type}: (secure, hidden)` : `${id.type}: ${id.id}`);

const historyIdText = (id: HistoryId): string => (id.erased ? `${id.type}: (erased)` : idText(id));

export class Panel {
  /** Bumped on every show: a history answer for a node no longer shown is dropped. */
  private generation = 0;

  constructor(
    private readonly element: HTMLElement,
    private readonly actions: PanelActions,
  ) {}

  hide(): void {
    this.generation++;
    this.element.hidden = true;
    this.element.replaceChildren();
  }

  /** A node: its schema and key, its IDs, and its history once `history` answers (null: the key is hidden). */
  showNode(collected: CollectedNode, context: PanelContext, history: Promise<Outcome<HistoryEntry[]>> | null): void {
    const generation = ++this.generation;
    const { node } = collected;
    const ids = el('ul', 'ids');
    const isKey = (id: IdPair) => id.type === node.key.type && id.id === node.key.id;
    // The key first, then the others in the service's order (by type, then value).
    for (const id of [...node.ids.filter(isKey), ...node.ids.filter((id) => !isKey(id))]) ids.append(el('li', null, this.idButton(id, context, isKey(id))));
    const historyBox = el('div', 'history', el('p', 'panel-message', 'Loading history…'));
    const why = el('button', 'id-button why-from', 'Why is this one person with…? Then click the other node.') as HTMLButtonElement;
    why.type = 'button';
    why.disabled = node.key.id === null;
    why.addEventListener('click', () => this.actions.onWhyFrom(collected.ref));
    this.render(
      'Node',
      idText(node.key),
      el('dl', null, el('dt', null, 'Schema'), el('dd', 'schema', node.schema), el('dt', null, 'Key'), el('dd', 'key', idText(node.key))),
      el('p', null, why),
      el('h3', null, `IDs (${node.ids.length})`),
      el('p', 'panel-message', 'Click an ID to draw every node holding it.'),
      ids,
      el('h3', null, 'History'),
      historyBox,
    );
    if (history === null) {
      historyBox.replaceChildren(el('p', 'panel-message', 'The key is of a secure type and hidden without a token: no history to ask for.'));
      return;
    }
    void history.then((outcome) => {
      if (generation !== this.generation) return;
      historyBox.replaceChildren(outcome.ok ? this.historyList(outcome.value) : problemLine(outcome.problem));
    });
  }

  /** An ID (a hot ID's vertex or a line): what it is, and who holds it among the drawn nodes. */
  showId(id: IdPair, holders: CollectedNode[], context: PanelContext): void {
    this.generation++;
    const list = el('ul', 'holders');
    for (const holder of holders) {
      const button = el('button', 'id-button', `${holder.node.schema} · ${idText(holder.node.key)}`) as HTMLButtonElement;
      button.type = 'button';
      button.addEventListener('click', () => this.actions.onSelectNode(holder.ref));
      list.append(el('li', null, button));
    }
    const expand = el('button', 'id-button expand', `Expand: draw every node holding ${idText(id)}`) as HTMLButtonElement;
    expand.type = 'button';
    expand.addEventListener('click', () => this.actions.onExpand(id));
    this.render(
      'ID',
      idText(id),
      el('p', null, ...this.badges(id, context)),
      el('h3', null, `Held by ${holders.length} drawn nodes`),
      list,
      el('p', null, expand),
    );
  }

  /** Why two picked nodes are one person: the chain `_why` answered, and "separate" with a confirmation. */
  showWhy(shown: WhyShown): void {
    this.generation++;
    const { a, b, outcome } = shown;
    const body: HTMLElement[] = [];
    if (!outcome.ok) {
      body.push(problemLine(outcome.problem));
    } else if (outcome.value.linked) {
      const hops = outcome.value.hops ?? 0;
      body.push(
        el(
          'p',
          'why-verdict',
          hops === 0 ? 'The same node.' : `One person: ${hops} ${hops === 1 ? 'shared ID' : 'shared IDs'} apart, the chain marked in the drawing.`,
        ),
      );
      const list = el('ul', 'chain');
      for (const step of outcome.value.path) {
        if ('via' in step) list.append(el('li', 'via', `shares ${whyIdText(step.via)}`));
        else list.append(el('li', 'node', `${step.node.schema} · ${whyIdText(step.node.key)}`));
      }
      body.push(list);
      if (shown.chain && shown.chain.missing > 0) body.push(el('p', 'panel-message', 'Part of the chain is not drawn: expand its IDs to see it.'));
    } else {
      body.push(
        el(
          'p',
          'why-verdict',
          outcome.value.reason === 'max_hops' ? 'No chain within the hop limit: they may still be linked further away.' : 'Not linked: they are two people.',
        ),
      );
    }
    body.push(el('h3', null, 'Separate'), this.separateBox(shown));
    this.render('Why', `${idText(a.node.key)} and ${idText(b.node.key)}`, ...body);
  }

  private separateBox(shown: WhyShown): HTMLElement {
    const box = el('div', 'separate');
    const shared = shown.shared.length === 0 ? 'They share no ID now.' : `They share ${shown.shared.map(idText).join(', ')}.`;
    box.append(el('p', 'panel-message', `Keep these two from ever sharing an ID again: later writes that would are refused. ${shared}`));
    if (shown.cannotSeparate) {
      box.append(el('p', 'panel-message problem', shown.cannotSeparate));
      return box;
    }
    const side = (value: 'A' | 'B', node: CollectedNode) => {
      const input = document.createElement('input');
      input.type = 'radio';
      input.name = 'remove-shared-from';
      input.value = value;
      input.checked = value === 'B';
      return el('label', 'side', input, ` remove them from ${idText(node.node.key)}`);
    };
    const sides = el('div', 'sides', side('A', shown.a), side('B', shown.b));
    const ask = el('button', 'id-button separate-ask', 'Separate…') as HTMLButtonElement;
    ask.type = 'button';
    const confirmLine = el('div', 'confirm');
    confirmLine.hidden = true;
    const result = el('div', 'separate-result');
    const chosen = (): 'A' | 'B' => (box.querySelector<HTMLInputElement>('input[name="remove-shared-from"]:checked')?.value === 'A' ? 'A' : 'B');
    ask.addEventListener('click', () => {
      const from = chosen() === 'A' ? shown.a : shown.b;
      const what =
        shown.shared.length === 0
          ? 'Remove nothing'
          : `Remove ${shown.shared.length === 1 ? 'the shared ID' : `the ${shown.shared.length} shared IDs`} from ${idText(from.node.key)}`;
      const yes = el('button', 'id-button separate-confirm', 'Yes, separate them') as HTMLButtonElement;
      yes.type = 'button';
      const no = el('button', 'id-button separate-cancel', 'Cancel') as HTMLButtonElement;
      no.type = 'button';
      no.addEventListener('click', () => {
        confirmLine.hidden = true;
        ask.disabled = false;
      });
      yes.addEventListener('click', () => {
        yes.disabled = true;
        no.disabled = true;
        void shown.separate(chosen()).then((outcome) => {
          confirmLine.hidden = true;
          result.replaceChildren(outcome.ok ? el('p', 'panel-message', `Separated: ${outcome.value.ids_removed} IDs removed.`) : problemLine(outcome.problem));
        });
      });
      confirmLine.replaceChildren(el('p', null, `${what}, and refuse every later write that would make these two share an ID?`), yes, no);
      confirmLine.hidden = false;
      ask.disabled = true;
    });
    box.append(sides, el('p', null, ask), confirmLine, result);
    return box;
  }

  private render(kind: string, title: string, ...body: HTMLElement[]): void {
    const close = el('button', 'close', '✕') as HTMLButtonElement;
    close.type = 'button';
    close.title = 'Close';
    close.setAttribute('aria-label', 'Close the panel');
    close.addEventListener('click', () => this.actions.onClose());
    this.element.replaceChildren(close, el('h2', null, `${kind}: ${title}`), ...body);
    this.element.dataset.kind = kind.toLowerCase();
    this.element.hidden = false;
  }

  private badges(id: IdPair, context: PanelContext): HTMLElement[] {
    const badges: HTMLElement[] = [];
    const holders = context.holderCount(id);
    const type = context.types.get(id.type);
    if (holders >= context.hotAt) badges.push(el('span', 'badge hot', `hot: ${holders} holders`));
    else if (holders >= 2) badges.push(el('span', 'badge', `shared by ${holders}`));
    if (type?.links === false) badges.push(el('span', 'badge unlinked', 'does not link'));
    if (type?.secure) badges.push(el('span', 'badge', 'secure'));
    if (type?.max_holders !== undefined) badges.push(el('span', 'badge', `max ${type.max_holders} holders`));
    return badges;
  }

  private idButton(id: IdPair, context: PanelContext, isKey: boolean): HTMLElement {
    const button = el('button', 'id-button', idText(id), ...(isKey ? [el('span', 'badge', 'key')] : []), ...this.badges(id, context)) as HTMLButtonElement;
    button.type = 'button';
    button.dataset.idType = id.type;
    button.dataset.idValue = id.id;
    button.title = 'Draw every node holding this ID';
    button.addEventListener('click', () => this.actions.onExpand(id));
    return button;
  }

  private historyList(entries: HistoryEntry[]): HTMLElement {
    if (entries.length === 0) return el('p', 'panel-message', 'No history for this key (older entries may have been deleted after the retention period).');
    const list = el('ul', null);
    for (const entry of entries) {
      const changes = [
        ...entry.added.map((id) => el('div', 'added', `+ ${historyIdText(id)}`)),
        ...entry.removed.map((id) => el('div', 'removed', `− ${historyIdText(id)}`)),
      ];
      // The instant as written, to the second and in UTC: the same for everyone who reads it out to someone else.
      const when = `${entry.at.slice(0, 19).replace('T', ' ')} UTC`;
      list.append(el('li', null, el('div', null, el('span', 'when', when), ` ${entry.op} by ${entry.actor}`), ...changes));
    }
    return list;
  }
}
