import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// One element of a model file's XML, with the line it starts on. The reader first turns
/// the whole file into these, then builds the model from them, so that building needs no
/// parser state.
struct XcodeModelXMLElement {
    var name: String
    var attributes: [String: String]
    var line: Int
    var children: [XcodeModelXMLElement] = []
    /// The character data directly inside the element (model files have none; mapping
    /// models keep their values there).
    var text = ""

    /// The children with the given element name, in file order.
    func children(named name: String) -> [XcodeModelXMLElement] {
        children.filter { $0.name == name }
    }

    /// The value of a YES/NO attribute: `true` for "YES" (and the "true"/"1" some tools
    /// write), `false` otherwise or when absent.
    func flag(_ attribute: String) -> Bool {
        switch attributes[attribute] {
        case "YES", "yes", "true", "TRUE", "1": true
        default: false
        }
    }

    /// Parses XML data into its root element.
    ///
    /// - Throws: `.malformedXML` with the line of the problem when the data is not well
    ///   formed XML.
    /// Where a `<?` other than the XML declaration at the start begins, if any.
    static func processingInstructionAfterDeclaration(in data: Data) -> Data.Index? {
        let opening = Data("<?".utf8)
        guard var found = data.range(of: opening) else { return nil }
        // The declaration: at the very start (after a byte-order mark or white space).
        let leading = data[data.startIndex..<found.lowerBound]
        let isDeclaration =
            leading.allSatisfy { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
            && data[found.lowerBound...].starts(with: Data("<?xml".utf8))
        if isDeclaration {
            guard let end = data.range(of: Data("?>".utf8), in: found.upperBound..<data.endIndex) else { return nil }
            guard let next = data.range(of: opening, in: end.upperBound..<data.endIndex) else { return nil }
            found = next
        }
        return found.lowerBound
    }

    static func parse(_ data: Data, file: URL?) throws(ModelError) -> XcodeModelXMLElement {
        // Xcode writes model files in UTF-8. FoundationXML's parser traps on names and values
        // that are not valid UTF-8, so such data is rejected before it gets there.
        guard isValidUTF8(data) else {
            throw ModelError(
                .malformedXML(reason: "the file is not valid UTF-8"), file: file, line: line(ofFirstInvalidByteIn: data))
        }
        // Model files have no document type declaration; refusing one keeps entity
        // expansion and external entities away from the parser.
        if data.range(of: Data("<!DOCTYPE".utf8)) != nil {
            throw ModelError(.malformedXML(reason: "model files have no document type declaration"), file: file)
        }
        // Nor processing instructions besides the XML declaration: FoundationXML's parser
        // crashes on one without data (`<?x?>`: libxml2's null data pointer reaches `strlen`).
        if let position = processingInstructionAfterDeclaration(in: data) {
            throw ModelError(
                .malformedXML(reason: "model files have no processing instructions besides the XML declaration"),
                file: file, line: data[data.startIndex..<position].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 })
        }
        let builder = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        let succeeded = parser.parse()
        guard succeeded, builder.failure == nil, let root = builder.root else {
            let reason =
                builder.failure
                ?? parser.parserError.map(Self.reason(for:))
                ?? "the document has no root element"
            throw ModelError(.malformedXML(reason: reason), file: file, line: max(parser.lineNumber, 1))
        }
        return root
    }

    /// A parser error in words. FoundationXML reports libxml2's error numbers with no text;
    /// the commonest are named here, the others given by number (the line locates them).
    fileprivate static func reason(for error: any Error) -> String {
        let code = (error as NSError).code
        let names = [
            4: "no start tag (the document is empty or not XML)",
            5: "extra content after the root element",
            76: "an end tag does not match its start tag",
            77: "the document ends inside an element",
        ]
        return names[code].map { "\($0) (libxml2 error \(code))" } ?? "libxml2 error \(code)"
    }

    private static func isValidUTF8(_ bytes: some Sequence<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// The line of the first byte that breaks UTF-8, for the error message.
    private static func line(ofFirstInvalidByteIn data: Data) -> Int {
        var line = 1
        var lineStart = data.startIndex
        for (offset, byte) in zip(data.indices, data) where byte == UInt8(ascii: "\n") {
            if !isValidUTF8(data[lineStart...offset]) { return line }
            line += 1
            lineStart = offset + 1
        }
        return line
    }
}

/// Collects `XMLParser` events into a tree of `XcodeModelXMLElement`.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    private var stack: [XcodeModelXMLElement] = []
    private(set) var root: XcodeModelXMLElement?
    private(set) var failure: String?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        if root != nil, stack.isEmpty {
            failure = "content after the root element"
            parser.abortParsing()
            return
        }
        stack.append(XcodeModelXMLElement(name: elementName, attributes: attributeDict, line: parser.lineNumber))
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        guard let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if failure == nil { failure = XcodeModelXMLElement.reason(for: parseError) }
    }
}
