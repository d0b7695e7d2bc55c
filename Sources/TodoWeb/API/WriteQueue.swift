/// Runs the API's changes one at a time, in the order they arrive.
///
/// The repositories change a to-do by reading it, changing the value and saving it whole
/// (`TodoRepository.tag(id:with:)` and the rest), and the task contexts' merge policy lets the
/// last save win. Two requests tagging one to-do at the same moment would each save the tags
/// they read plus their own, and one tag would be lost without a word. Queued, each change
/// reads what the one before it saved. Reads do not wait.
actor WriteQueue {
    private var isBusy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `work` once every change queued before it has finished.
    func run<Result: Sendable>(_ work: @Sendable () async throws -> Result) async throws -> Result {
        await acquire()
        defer { release() }
        return try await work()
    }

    private func acquire() async {
        guard isBusy else {
            isBusy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the turn to the next change, or frees the queue.
    private func release() {
        if waiting.isEmpty {
            isBusy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
