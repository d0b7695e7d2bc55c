import Foundation

/// A bookmark in a coordinator's persistent history: the last transaction seen in each of its
/// stores. Apps keep one to fetch, next time, only the history recorded since.
///
/// ```swift
/// let token = coordinator.currentPersistentHistoryToken(fromStores: nil)
/// let data = try JSONEncoder().encode(token)          // or NSKeyedArchiver
/// let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
/// ```
///
/// Apple's token is opaque and archivable (`NSSecureCoding`); Strata's is both that and
/// `Codable`, so that an app stores it with the encoders it already uses.
public final class NSPersistentHistoryToken: NSObject, NSCopying, NSSecureCoding, Codable, @unchecked Sendable {
    /// The number of the last transaction covered, by store identifier (the store's UUID).
    package let transactionNumbers: [String: Int64]

    package init(transactionNumbers: [String: Int64]) {
        self.transactionNumbers = transactionNumbers
        super.init()
    }

    /// The number the token holds for one store, if it covers it.
    func transactionNumber(for store: NSPersistentStore) -> Int64? {
        store.identifier.flatMap { transactionNumbers[$0] }
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? NSPersistentHistoryToken)?.transactionNumbers == transactionNumbers
    }

    public override var hash: Int { transactionNumbers.hashValue }

    public override var description: String {
        let parts = transactionNumbers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        return "<NSPersistentHistoryToken {\(parts.joined(separator: ", "))}>"
    }

    // MARK: NSSecureCoding

    public static var supportsSecureCoding: Bool { true }

    private static let storesKey = "NSStoreTokens"

    public func encode(with coder: NSCoder) {
        // Two parallel arrays of property-list values: what any keyed archiver writes and reads.
        let stores = transactionNumbers.keys.sorted()
        coder.encode(stores.map { NSString(string: $0) } as NSArray, forKey: Self.storesKey)
        coder.encode(stores.map { NSNumber(value: transactionNumbers[$0] ?? 0) } as NSArray, forKey: "NSTransactionNumbers")
    }

    public init?(coder: NSCoder) {
        // A secure unarchiver checks each object's class against the list.
        let classes: [AnyClass] = [NSArray.self, NSString.self, NSNumber.self]
        guard let stores = coder.decodeObject(of: classes, forKey: Self.storesKey) as? NSArray,
            let numbers = coder.decodeObject(of: classes, forKey: "NSTransactionNumbers") as? NSArray,
            stores.count == numbers.count
        else { return nil }
        var decoded: [String: Int64] = [:]
        for (store, number) in zip(stores, numbers) {
            guard let store = (store as? NSString).map(String.init), let number = (number as? NSNumber)?.int64Value else {
                return nil
            }
            decoded[store] = number
        }
        transactionNumbers = decoded
        super.init()
    }

    // MARK: Codable

    private enum CodingKeys: String, CodingKey {
        case transactionNumbers
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        transactionNumbers = try container.decode([String: Int64].self, forKey: .transactionNumbers)
        super.init()
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(transactionNumbers, forKey: .transactionNumbers)
    }
}
