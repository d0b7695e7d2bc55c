extension RandomAccessCollection {
    /// Calls `body` with each run of adjacent elements that `same` says belong together
    /// (compared with the run's first element), in order: work that depends only on what a run
    /// shares (an entity's mapping, an owner's key) is done once per run, not once per element.
    func forEachRun(
        where same: (Element, Element) throws -> Bool, _ body: (SubSequence) throws -> Void
    ) rethrows {
        var start = startIndex
        while start != endIndex {
            var end = index(after: start)
            while end != endIndex, try same(self[start], self[end]) { formIndex(after: &end) }
            try body(self[start..<end])
            start = end
        }
    }
}
