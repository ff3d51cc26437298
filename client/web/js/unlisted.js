// Why a ranked daily win is not on the public board, in words: the reason
// codes the server gives in `game_over.unlisted` and on a leaderboard
// page (`unranked`, `me_unranked`), as docs/protocol.md lists them.

const REASONS = {
  cadence: "it was played at a pace no person keeps, so it ranks on the bots' board",
  new_player: "your player was created after the day began, so it ranks among friends and leagues only",
  same_network: "another attempt from your network took its public place first, so it is shown apart",
};

// One sentence for a list of reason codes (a code this client does not
// know is shown as it is).
export function unlistedSentence(reasons) {
  return `Not on the public board: ${reasons.map((reason) => REASONS[reason] ?? reason).join("; ")}.`;
}
