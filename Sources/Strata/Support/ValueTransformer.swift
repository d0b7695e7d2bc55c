import Foundation

#if !canImport(Darwin)
    /// The name a value transformer is registered under.
    public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// The transformer that unarchives keyed archives of the allowed classes.
        public static let secureUnarchiveFromDataTransformerName = NSValueTransformerName("NSSecureUnarchiveFromData")
        /// The legacy transformer that unarchives keyed archives.
        public static let keyedUnarchiveFromDataTransformerName = NSValueTransformerName("NSKeyedUnarchiveFromData")
    }

    /// Turns values into other values, and back: Foundation's `ValueTransformer`, which
    /// Foundation on Linux lacks. Core Data stores a transformable attribute's value as the
    /// data its transformer makes.
    ///
    /// ```swift
    /// ValueTransformer.setValueTransformer(ColorTransformer(), forName: .init("ColorTransformer"))
    /// ```
    open class ValueTransformer: NSObject, @unchecked Sendable {
        private static let registry = Protected([String: ValueTransformer]())

        /// Registers a transformer under a name; `nil` removes it.
        open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
            registry.withLock { $0[name.rawValue] = transformer }
        }

        /// The names of the registered transformers.
        open class func valueTransformerNames() -> [NSValueTransformerName] {
            registry.withLock { $0.keys.sorted().map(NSValueTransformerName.init(rawValue:)) }
        }

        /// The transformer registered under the name (the archiving ones are always there).
        public convenience init?(forName name: NSValueTransformerName) {
            guard ValueTransformer.registered(name) != nil else { return nil }
            self.init()
            delegate = ValueTransformer.registered(name)
        }

        static func registered(_ name: NSValueTransformerName) -> ValueTransformer? {
            if let found = registry.withLock({ $0[name.rawValue] }) { return found }
            switch name {
            case .secureUnarchiveFromDataTransformerName: return NSSecureUnarchiveFromDataTransformer()
            case .keyedUnarchiveFromDataTransformerName: return KeyedUnarchiveFromDataTransformer()
            default: return nil
            }
        }

        private var delegate: ValueTransformer?

        public override init() { super.init() }

        /// The class of the transformed values.
        open class func transformedValueClass() -> AnyClass { NSObject.self }
        /// Whether `reverseTransformedValue(_:)` is supported.
        open class func allowsReverseTransformation() -> Bool { true }

        /// The transformed value.
        open func transformedValue(_ value: Any?) -> Any? {
            delegate.map { $0.transformedValue(value) } ?? value
        }

        /// The original value of a transformed one.
        open func reverseTransformedValue(_ value: Any?) -> Any? {
            delegate.map { $0.reverseTransformedValue(value) } ?? value
        }
    }

    /// Archives values with `NSKeyedArchiver` and reads them back; the default transformer
    /// of transformable attributes.
    open class NSSecureUnarchiveFromDataTransformer: ValueTransformer, @unchecked Sendable {
        /// The classes allowed at the top of an archive.
        open class var allowedTopLevelClasses: [AnyClass] {
            [
                NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSURL.self,
                NSUUID.self, NSNull.self,
            ]
        }

        open override class func transformedValueClass() -> AnyClass { NSData.self }

        open override func transformedValue(_ value: Any?) -> Any? {
            guard let object = value as? (NSObject & NSCoding) else { return nil }
            return try? NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
        }

        open override func reverseTransformedValue(_ value: Any?) -> Any? {
            guard let data = value as? Data else { return nil }
            return try? NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data)
        }
    }

    /// The legacy keyed-archive transformer.
    final class KeyedUnarchiveFromDataTransformer: NSSecureUnarchiveFromDataTransformer, @unchecked Sendable {}
#endif
