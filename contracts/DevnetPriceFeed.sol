// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title Devnet price feed
/// @notice Answers Chainlink's AggregatorV3Interface (decimals, description, version,
///         getRoundData, latestRoundData) from rounds its owner posts, so the service's
///         rate source reads a real contract through the same calls it makes on mainnet.
///         Devnet only: a real feed aggregates many oracle reports; this one holds what the
///         owner (the devnet provisioning, or a test) writes.
/// @dev    The devnet installs this code at a fixed address per asset (anvil_setCode), so
///         there is no constructor: `initialize` sets it up once.
contract DevnetPriceFeed {
    struct Round {
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
        uint80 answeredInRound;
    }

    address public owner;
    uint8 public decimals;
    string public description;
    uint256 public constant version = 4;
    uint80 public latestRound;
    mapping(uint80 => Round) internal rounds;

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    error AlreadyInitialized();
    error NotOwner(address caller);
    error NoDataPresent();

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _;
    }

    function initialize(address owner_, uint8 decimals_, string calldata description_) external {
        if (owner != address(0)) revert AlreadyInitialized();
        owner = owner_;
        decimals = decimals_;
        description = description_;
    }

    /// @notice A new round with `answer`, timestamped now, as a healthy feed reports.
    function setAnswer(int256 answer) external onlyOwner {
        uint80 id = latestRound + 1;
        _store(id, answer, block.timestamp, block.timestamp, id);
    }

    /// @notice A round exactly as given, to model what unhealthy feeds report (an old
    ///         `updatedAt`, an answer carried over from an earlier round, no answer at all).
    function setRoundData(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
        external
        onlyOwner
    {
        _store(roundId, answer, startedAt, updatedAt, answeredInRound);
    }

    function getRoundData(uint80 roundId)
        public
        view
        returns (uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        Round memory r = rounds[roundId];
        // Chainlink's aggregators revert for a round they never had.
        if (r.updatedAt == 0 && r.startedAt == 0 && r.answer == 0) revert NoDataPresent();
        return (roundId, r.answer, r.startedAt, r.updatedAt, r.answeredInRound);
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return getRoundData(latestRound);
    }

    function _store(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound) internal {
        rounds[roundId] = Round(answer, startedAt, updatedAt, answeredInRound);
        latestRound = roundId;
        emit AnswerUpdated(answer, roundId, updatedAt);
    }
}
