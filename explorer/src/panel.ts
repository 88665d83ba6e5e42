// The side panel: a clicked node (schema, key, each ID it holds as a button that expands its holders, and its
// history), or a clicked hot ID or line (the ID and who holds it). Text only through textContent: IDs are data.
import type { HistoryEntry, HistoryId, Outcome } from './api';
import { type CollectedNode, type GraphType, type IdPair, idText } from './model';
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
    this.render(
      'Node',
      idText(node.key),
      el('dl', null, el('dt', null, 'Schema'), el('dd', 'schema', node.schema), el('dt', null, 'Key'), el('dd', 'key', idText(node.key))),
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
