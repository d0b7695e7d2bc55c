import Foundation
import Strata

// SwiftData's persistent history (Apple's iOS 18 API) over Core Data's, which every store of
// a container records (ATRANSACTION, ACHANGE): the transactions saved, by whom, and the
// models each inserted, updated or deleted.

/// A point in a container's history: the last transaction seen in each store.
public struct DefaultHistoryToken: HistoryToken {
    /// The last transaction's number, by store identifier.
    let transactionNumbers: [String: Int64]

    init(_ token: NSPersistentHistoryToken) {
        transactionNumbers = token.transactionNumbers
    }

    var persistentHistoryToken: NSPersistentHistoryToken {
        NSPersistentHistoryToken(transactionNumbers: transactionNumbers)
    }

    /// Earlier: no store's transaction later, and one earlier (or a store the other has not
    /// seen yet).
    public static func < (lhs: Self, rhs: Self) -> Bool {
        var earlier = false
        for (store, number) in rhs.transactionNumbers {
            guard let mine = lhs.transactionNumbers[store] else {
                earlier = true
                continue
            }
            if mine > number { return false }
            if mine < number { earlier = true }
        }
        return earlier && lhs.transactionNumbers.keys.allSatisfy { rhs.transactionNumbers[$0] != nil }
    }
}

/// What a history token is: comparable (later transactions have greater tokens), storable.
public protocol HistoryToken: Hashable, Comparable, Codable, Sendable {}

/// A transaction of the history: one save of one context.
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    associatedtype Token: HistoryToken
    var author: String? { get }
    var bundleIdentifier: String { get }
    var changes: [HistoryChange] { get }
    var processIdentifier: String { get }
    var storeIdentifier: String { get }
    var timestamp: Date { get }
    var token: Token { get }
    var transactionIdentifier: Int64 { get }
}

public struct DefaultHistoryTransaction: HistoryTransaction {
    public let author: String?
    public let bundleIdentifier: String
    public let changes: [HistoryChange]
    public let processIdentifier: String
    public let storeIdentifier: String
    public let timestamp: Date
    public let token: DefaultHistoryToken
    public let transactionIdentifier: Int64

    public var id: String { "\(storeIdentifier)/\(transactionIdentifier)" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// One model's change in a transaction.
public enum HistoryChange: Sendable {
    case insert(any HistoryInsert)
    case update(any HistoryUpdate)
    case delete(any HistoryDelete)

    /// The model changed.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let change): change.changedPersistentIdentifier
        case .update(let change): change.changedPersistentIdentifier
        case .delete(let change): change.changedPersistentIdentifier
        }
    }
}

public protocol HistoryInsert<Model>: Hashable, Sendable {
    associatedtype Model: PersistentModel
    var changedPersistentIdentifier: PersistentIdentifier { get }
    var changeIdentifier: Int64 { get }
    var transactionIdentifier: Int64 { get }
}

public protocol HistoryUpdate<Model>: Hashable, Sendable {
    associatedtype Model: PersistentModel
    var changedPersistentIdentifier: PersistentIdentifier { get }
    var changeIdentifier: Int64 { get }
    var transactionIdentifier: Int64 { get }
    /// The persisted properties the update changed.
    var updatedAttributes: [PartialKeyPath<Model>] { get }
}

public protocol HistoryDelete<Model>: Hashable, Sendable {
    associatedtype Model: PersistentModel
    var changedPersistentIdentifier: PersistentIdentifier { get }
    var changeIdentifier: Int64 { get }
    var transactionIdentifier: Int64 { get }
    /// The values of the properties marked `.preserveValueOnDeletion`, kept after the deletion.
    var tombstone: HistoryTombstone<Model> { get }
}

public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert {
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: Int64
    public let transactionIdentifier: Int64
}

public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, @unchecked Sendable {
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: Int64
    public let transactionIdentifier: Int64
    public let updatedAttributes: [PartialKeyPath<Model>]

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.changeIdentifier == rhs.changeIdentifier && lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(changeIdentifier) }
}

public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete {
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: Int64
    public let transactionIdentifier: Int64
    public let tombstone: HistoryTombstone<Model>
}

/// What a deleted model left in the history: the values of its `.preserveValueOnDeletion`
/// properties, read by key path.
public struct HistoryTombstone<Model: PersistentModel>: Hashable, @unchecked Sendable {
    let values: [String: Any]

    /// The kept value of a property, in the property's type (a struct from its composite's
    /// elements, an enumeration from its raw value, `Int` from the stored integer…).
    public subscript<Value>(keyPath: KeyPath<Model, Value>) -> Value? {
        let info = ModelTypeInfo.of(Model.self)
        guard let name = info.name(of: keyPath), let value = values[name] else { return nil }
        if let value = value as? Value { return value }
        guard let property = info.propertiesByName[name], case .attribute(let type) = property.kind else { return nil }
        return ModelValues.value(fromStored: value, as: type) as? Value
    }

    /// The names of the values kept.
    public var keys: [String] { values.keys.sorted() }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.keys == rhs.keys }
    public func hash(into hasher: inout Hasher) { hasher.combine(keys) }
}

/// Which transactions `fetchHistory` and `deleteHistory` take: those the predicate matches,
/// in the sort's order (by token without one), at most `fetchLimit`.
public struct HistoryDescriptor<T: HistoryTransaction>: @unchecked Sendable {
    public var predicate: Predicate<T>?
    public var sortBy: [SortDescriptor<T>] = []
    public var fetchLimit: Int?

    public init(predicate: Predicate<T>? = nil) {
        self.predicate = predicate
    }
}

extension ModelContext {
    /// The transactions of the container's history the descriptor takes, each with its changes.
    ///
    /// A predicate that bounds the token from below (`$0.token > token`, alone or in `&&`)
    /// reads only the later transactions from the stores; the whole predicate is then
    /// evaluated on each transaction read.
    public func fetchHistory(
        _ descriptor: HistoryDescriptor<DefaultHistoryTransaction>
    ) throws
        -> [DefaultHistoryTransaction]
    {
        let after = descriptor.predicate.flatMap { HistoryTokenBound.lowerBound(of: $0) }
        var transactions = try transactions(after: after).filter { transaction in
            try descriptor.predicate?.evaluate(transaction) ?? true
        }
        if !descriptor.sortBy.isEmpty { transactions.sort(using: descriptor.sortBy) }
        if let limit = descriptor.fetchLimit { transactions = Array(transactions.prefix(max(0, limit))) }
        return transactions
    }

    /// Deletes the transactions the descriptor takes and every earlier one (the history is
    /// kept as a whole from some point on, as Core Data keeps it).
    public func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        let matched = try fetchHistory(descriptor)
        guard let last = matched.max(by: { $0.token < $1.token }) else { return }
        let request = NSPersistentHistoryChangeRequest.deleteHistory(before: last.token.persistentHistoryToken)
        _ = try managed.execute(request)
    }

    /// The transactions after a token (all of them without one), each with its changes.
    private func transactions(after token: DefaultHistoryToken?) throws -> [DefaultHistoryTransaction] {
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token?.persistentHistoryToken)
        guard let result = try managed.execute(request) as? NSPersistentHistoryResult,
            let transactions = result.result as? [NSPersistentHistoryTransaction]
        else { return [] }
        let types = container.schema.types
        return transactions.map { transaction in
            let number = transaction.transactionNumber
            let changes: [HistoryChange] = (transaction.changes ?? []).compactMap { change in
                guard let name = change.changedObjectID.entity.name, let type = types[name] else { return nil }
                return Self.change(change, of: type, transaction: number)
            }
            return DefaultHistoryTransaction(
                author: transaction.author, bundleIdentifier: transaction.bundleID, changes: changes,
                processIdentifier: transaction.processID, storeIdentifier: transaction.storeID,
                timestamp: transaction.timestamp, token: DefaultHistoryToken(transaction.token),
                transactionIdentifier: number)
        }
    }

    private static func change<Model: PersistentModel>(
        _ change: NSPersistentHistoryChange, of type: Model.Type, transaction: Int64
    ) -> HistoryChange {
        let identifier = PersistentIdentifier(change.changedObjectID)
        switch change.changeType {
        case .insert:
            return .insert(
                DefaultHistoryInsert<Model>(
                    changedPersistentIdentifier: identifier, changeIdentifier: change.changeID,
                    transactionIdentifier: transaction))
        case .update:
            let info = ModelTypeInfo.of(Model.self)
            let keyPaths = (change.updatedProperties ?? []).compactMap { property in
                info.propertiesByName[property.name]?.keyPath as? PartialKeyPath<Model>
            }
            return .update(
                DefaultHistoryUpdate<Model>(
                    changedPersistentIdentifier: identifier, changeIdentifier: change.changeID,
                    transactionIdentifier: transaction, updatedAttributes: keyPaths))
        default:
            var values: [String: Any] = [:]
            for (key, value) in change.tombstone ?? [:] {
                if let key = key.base as? String { values[key] = value }
            }
            return .delete(
                DefaultHistoryDelete<Model>(
                    changedPersistentIdentifier: identifier, changeIdentifier: change.changeID,
                    transactionIdentifier: transaction, tombstone: HistoryTombstone(values: values)))
        }
    }
}

/// The token a history predicate's transactions must follow, when the predicate says so at its
/// top: `$0.token > t` (or `t < $0.token`), alone or as a side of `&&`. Anything else gives no
/// bound (all transactions are read, the predicate decides).
enum HistoryTokenBound {
    static func lowerBound(of predicate: Predicate<DefaultHistoryTransaction>) -> DefaultHistoryToken? {
        bound(predicate.expression, input: predicate.variable.key)
    }

    private static func bound(_ expression: Any, input: PredicateExpressions.VariableID) -> DefaultHistoryToken? {
        if let conjunction = expression as? any _HistoryConjunction {
            let (left, right) = conjunction.sides
            let bounds = [bound(left, input: input), bound(right, input: input)].compactMap { $0 }
            // Either side's bound holds; the later one (when they compare) reads less.
            return bounds.max()
        }
        if let comparison = expression as? any _HistoryTokenComparison {
            return comparison.tokenLowerBound(input: input)
        }
        return nil
    }
}

protocol _HistoryConjunction {
    var sides: (Any, Any) { get }
}

extension PredicateExpressions.Conjunction: _HistoryConjunction {
    var sides: (Any, Any) { (lhs, rhs) }
}

protocol _HistoryTokenComparison {
    func tokenLowerBound(input: PredicateExpressions.VariableID) -> DefaultHistoryToken?
}

extension PredicateExpressions.Comparison: _HistoryTokenComparison {
    /// `$0.token > t` or `t < $0.token` (strictly later: what `fetchHistory(after:)` reads).
    func tokenLowerBound(input: PredicateExpressions.VariableID) -> DefaultHistoryToken? {
        func isInputToken(_ expression: Any) -> Bool {
            guard
                let keyPath = expression
                    as? PredicateExpressions.KeyPath<
                        PredicateExpressions.Variable<DefaultHistoryTransaction>, DefaultHistoryToken
                    >
            else { return false }
            return keyPath.root.key == input && keyPath.keyPath == \DefaultHistoryTransaction.token
        }
        func constant(_ expression: Any) -> DefaultHistoryToken? {
            (expression as? PredicateExpressions.Value<DefaultHistoryToken>)?.value
        }
        switch op {
        case .greaterThan where isInputToken(lhs): return constant(rhs)
        case .lessThan where isInputToken(rhs): return constant(lhs)
        default: return nil
        }
    }
}
