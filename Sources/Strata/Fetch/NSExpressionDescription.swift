import Foundation

/// A computed column of a dictionary fetch: an expression (usually an aggregate such as
/// `sum:`) under a name.
///
/// ```swift
/// let total = NSExpressionDescription()
/// total.name = "total"
/// total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "amount")])
/// total.expressionResultType = .decimalAttributeType
/// request.propertiesToFetch = ["category", total]
/// ```
open class NSExpressionDescription: NSPropertyDescription, @unchecked Sendable {
    /// The expression computed for each result.
    open var expression: NSExpression?
    /// The type of the computed value.
    open var expressionResultType: NSAttributeType = .undefinedAttributeType

    override class func makeEmpty() -> NSPropertyDescription { NSExpressionDescription() }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = super.copy(with: zone)
        if let copy = copy as? NSExpressionDescription {
            copy.expression = expression
            copy.expressionResultType = expressionResultType
        }
        return copy
    }
}
