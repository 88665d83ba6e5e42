// What src/http/answer-memory.ts keeps in app.locals and res.locals, typed for it.
import type { AnswerMemory, ReadStart } from './answer-memory';

declare global {
  namespace Express {
    interface Locals {
      /** app.locals: what boundAnswerMemory keeps, for answerRoomOf and admitRead. */
      answerMemory?: AnswerMemory;
      /** res.locals: bytes of the budget a search or graph took before its answer was built (answerRoomOf). */
      answerRoomBytes?: number;
      /** res.locals: the read's start (admitRead). */
      answerRoomStart?: ReadStart;
      /** res.locals: whether the read's answer passed HEAVY_ANSWER_BYTES (answerRoomOf). */
      answerRoomLarge?: boolean;
    }
  }
}
