import Foundation

/// SQL texts a store makes on demand and then keeps, by what they depend on: the `UPDATE`
/// of a set of changed columns, the `SELECT` of a relationship's destinations. Building a
/// statement's text costs more than running a small one, and saves and relationship faults
/// ask for the same few texts again and again.
final class SQLiteStatementTexts<Key: Hashable>: @unchecked Sendable {
    private let texts = Protected([Key: String]())

    func text(for key: Key, make: () -> String) -> String {
        if let text = texts.withLock({ $0[key] }) { return text }
        let text = make()
        texts.withLock { $0[key] = text }
        return text
    }
}
