/// Declares a property of an `NSManagedObject` subclass whose value lives in the object:
/// Strata's stand-in for `@NSManaged`, which needs the Objective-C runtime.
///
/// ```swift
/// final class Book: NSManagedObject {
///     @Managed var title: String?
///     @Managed var pages: Int32
///     @Managed var authors: NSSet?
///     @Managed var publisher: Publisher?
/// }
/// ```
///
/// The property's name is the model property's name, and its type follows the model as
/// Xcode's generated classes do: optional object types (`String?`, `Date?`, `NSNumber?`,
/// `NSSet?`, `NSOrderedSet?`, `Publisher?`), Swift scalars for attributes that use scalar
/// types (`Int16`…`Int64`, `Int`, `Double`, `Float`, `Bool`, `Decimal`), and Swift
/// collections (`Set<Author>`, `[Chapter]`) for to-many relationships. A non-optional
/// scalar reads a missing value as zero (or `false`, empty); a non-optional property of
/// another type must hold a value when read.
///
/// The property must be an instance `var` with a type annotation, and no initial value or
/// accessors: default values come from the model.
@attached(accessor)
public macro Managed() = #externalMacro(module: "StrataMacros", type: "ManagedMacro")
