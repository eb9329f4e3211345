// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title Devnet stablecoin stand-in
/// @notice A plain ERC-20 with a deployer-only mint, so deposits, sweeps and withdrawals
///         on the local devnet move a real token through real EVM code. It also keeps an
///         issuer's blacklist, answering the reads of the real stablecoins (Tether's
///         isBlackListed / getBlackListStatus and its newer isBlocked, Circle's isBlacklisted),
///         so the service's AML screening reads it on the devnet exactly as on mainnet.
contract TestToken {
    string public name;
    string public symbol;
    // Stablecoins differ in decimals across chains (6 on Ethereum, 18 on BNB Smart Chain);
    // making it a constructor argument lets the devnet exercise both.
    uint8 public immutable decimals;
    // Immutable rather than a storage slot: the code, not a mutable variable, decides who
    // may mint, and there is no ownership transfer to get wrong.
    address public immutable minter;

    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    // One list behind every issuer's read: a devnet USDT or USDC answers both issuers'
    // function names, so a test can list an address on either. Appended after the ERC-20
    // slots, so the layout of the balances is that of earlier builds.
    mapping(address => bool) private blacklisted;
    // Tether's legacy token (USDT on Tron, Solidity 0.4 with SafeMath) checks a balance with
    // `assert`: a transfer beyond it ends on the invalid opcode, not a revert, and a node
    // reports that as a VM exception (java-tron: IllegalOperationException), not a revert.
    // The minter switches a stand-in token to that behaviour. Appended too, for the layout.
    bool public legacyAssert;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    // The issuers' own event names: Tether's legacy token, Tether's newer one, Circle's FiatToken.
    event AddedBlackList(address indexed _user);
    event RemovedBlackList(address indexed _user);
    event Blacklisted(address indexed _account);
    event UnBlacklisted(address indexed _account);

    // ERC-6093 error shapes, so tools that know OpenZeppelin's errors decode ours too.
    error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed);
    error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed);
    error ERC20InvalidSender(address sender);
    error ERC20InvalidReceiver(address receiver);
    error ERC20InvalidApprover(address approver);
    error ERC20InvalidSpender(address spender);
    error UnauthorizedMinter(address caller);

    constructor(string memory name_, string memory symbol_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        minter = msg.sender;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        _approve(msg.sender, spender, value);
        return true;
    }

    // As USDC (FiatToken) has them: an allowance changed relative to its current value.
    function increaseAllowance(address spender, uint256 increment) external returns (bool) {
        _approve(msg.sender, spender, allowance[msg.sender][spender] + increment);
        return true;
    }

    function decreaseAllowance(address spender, uint256 decrement) external returns (bool) {
        uint256 current = allowance[msg.sender][spender];
        if (current < decrement) revert ERC20InsufficientAllowance(spender, current, decrement);
        unchecked {
            _approve(msg.sender, spender, current - decrement);
        }
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        // An allowance of type(uint256).max means "unlimited" by wide convention; leaving it
        // untouched saves a storage write and matches what wallets expect to see afterwards.
        if (allowed != type(uint256).max) {
            if (allowed < value) revert ERC20InsufficientAllowance(msg.sender, allowed, value);
            unchecked {
                allowance[from][msg.sender] = allowed - value;
            }
        }
        _transfer(from, to, value);
        return true;
    }

    function mint(address to, uint256 value) external {
        if (msg.sender != minter) revert UnauthorizedMinter(msg.sender);
        if (to == address(0)) revert ERC20InvalidReceiver(address(0));
        // Checked: an overflowing supply must revert rather than wrap.
        totalSupply += value;
        unchecked {
            // Cannot overflow: every balance is bounded by totalSupply, checked just above.
            balanceOf[to] += value;
        }
        emit Transfer(address(0), to, value);
    }

    // ---- issuer blacklist (the minter, the devnet's issuer, manages it) -------------------
    // Unlike the real tokens, a listed account may still move tokens here: the devnet shows
    // what the service refuses by screening, before anything is signed.

    /// Tether (Ethereum 2017 TetherToken, Tron's USDT): the public mapping's getter.
    function isBlackListed(address account) external view returns (bool) {
        return blacklisted[account];
    }

    /// Tether: the same answer under its older name.
    function getBlackListStatus(address account) external view returns (bool) {
        return blacklisted[account];
    }

    /// Tether's newer TetherToken (WithBlockedList) and USDT0.
    function isBlocked(address account) external view returns (bool) {
        return blacklisted[account];
    }

    /// Circle (FiatToken).
    function isBlacklisted(address account) external view returns (bool) {
        return blacklisted[account];
    }

    function addBlackList(address account) external {
        _setBlacklisted(account, true);
        emit AddedBlackList(account);
    }

    function removeBlackList(address account) external {
        _setBlacklisted(account, false);
        emit RemovedBlackList(account);
    }

    function blacklist(address account) external {
        _setBlacklisted(account, true);
        emit Blacklisted(account);
    }

    function unBlacklist(address account) external {
        _setBlacklisted(account, false);
        emit UnBlacklisted(account);
    }

    function setLegacyAssert(bool on) external {
        if (msg.sender != minter) revert UnauthorizedMinter(msg.sender);
        legacyAssert = on;
    }

    function _setBlacklisted(address account, bool listed) private {
        if (msg.sender != minter) revert UnauthorizedMinter(msg.sender);
        blacklisted[account] = listed;
    }

    function _transfer(address from, address to, uint256 value) private {
        if (from == address(0)) revert ERC20InvalidSender(address(0));
        if (to == address(0)) revert ERC20InvalidReceiver(address(0));
        uint256 fromBalance = balanceOf[from];
        if (fromBalance < value) {
            if (legacyAssert) {
                assembly {
                    invalid()
                }
            }
            revert ERC20InsufficientBalance(from, fromBalance, value);
        }
        unchecked {
            // Both bounded by totalSupply: the subtraction was checked above, and the sum of
            // two balances never exceeds the supply.
            balanceOf[from] = fromBalance - value;
            balanceOf[to] += value;
        }
        emit Transfer(from, to, value);
    }

    function _approve(address owner, address spender, uint256 value) private {
        if (owner == address(0)) revert ERC20InvalidApprover(address(0));
        if (spender == address(0)) revert ERC20InvalidSpender(address(0));
        allowance[owner][spender] = value;
        emit Approval(owner, spender, value);
    }
}
